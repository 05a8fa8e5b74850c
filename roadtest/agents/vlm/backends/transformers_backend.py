"""A local Hugging Face checkpoint folder: AutoModelForImageTextToText with AutoProcessor, or, where the processor
cannot be built (processors with a video part need torchvision), the image processor and the tokenizer with the
image placeholder expanded here.

Greedy decoding; generation stops at max_new_tokens or at the call's timeout (generate's max_time), so a
slow model never hangs a run. dtype and device come from the config (auto: bfloat16 on CUDA, else float32).
"""

from __future__ import annotations

import os
import time
from typing import Any, Mapping, Sequence

from roadtest.agents.vlm.backends import Answer, BackendCallError
from roadtest.errors import DependencyMissing, UserError

__all__ = ["TransformersBackend"]

_QWEN_IMAGE = "<|image_pad|>"


class TransformersBackend:
    """The `transformers` section of the agent config: model_path, dtype, device, max_new_tokens."""

    name = "transformers"
    is_vlm = True

    def __init__(self, config: Mapping[str, Any]):
        c = config["transformers"]
        path = str(c["model_path"])
        if not os.path.isdir(path):
            raise UserError(f"transformers.model_path: {path} is not a folder (a local checkpoint saved with save_pretrained)")
        try:
            import torch
            import transformers
        except ImportError as e:
            raise DependencyMissing(e.name or "transformers", "vlm") from e
        self.torch = torch
        device = c["device"]
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        dtype = c["dtype"]
        if dtype == "auto":
            dtype = "bfloat16" if device.startswith("cuda") else "float32"
        if not hasattr(torch, str(dtype)):
            raise UserError(f"transformers.dtype: expected auto, float32, float16 or bfloat16, got {dtype!r}")
        self.device, self.dtype = device, getattr(torch, dtype)
        self.max_new_tokens = int(c["max_new_tokens"])
        self.model_path = path
        self.model = os.path.basename(os.path.normpath(path))
        try:
            net = transformers.AutoModelForImageTextToText.from_pretrained(path, local_files_only=True, dtype=self.dtype)
        except (OSError, ValueError) as e:
            raise UserError(f"transformers.model_path: {path}: cannot load the model ({e})") from e
        self.net = net.to(device).eval()
        self.processor = self.image_processor = self.tokenizer = None
        try:
            self.processor = transformers.AutoProcessor.from_pretrained(path, local_files_only=True)
            self.tokenizer = getattr(self.processor, "tokenizer", None)
        except (ImportError, AttributeError, OSError, ValueError, TypeError):
            self.image_processor = transformers.AutoImageProcessor.from_pretrained(path, local_files_only=True)
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
        self.loader = "processor" if self.processor is not None else "image_processor+tokenizer"

    def _chat(self, messages: Sequence[Mapping[str, Any]], n_images: int) -> list[dict[str, Any]]:
        chat: list[dict[str, Any]] = []
        last = max(i for i, m in enumerate(messages) if m["role"] == "user")
        for i, m in enumerate(messages):
            parts = [{"type": "image"} for _ in range(n_images)] if i == last else []
            chat.append({"role": m["role"], "content": parts + [{"type": "text", "text": str(m["content"])}]})
        return chat

    def inputs(self, messages: Sequence[Mapping[str, Any]], images: Sequence[Any]) -> dict[str, Any]:
        """Model inputs (token ids, pixel values...) for one chat with its images, as tensors on the device."""
        from PIL import Image

        pil = [Image.fromarray(im) for im in images]
        chat = self._chat(messages, len(pil))
        if self.processor is not None:
            text = self.processor.apply_chat_template(chat, add_generation_prompt=True, tokenize=False)
            batch = self.processor(text=text, images=pil or None, return_tensors="pt")
        else:
            text = self.tokenizer.apply_chat_template(chat, add_generation_prompt=True, tokenize=False)
            batch = {}
            if pil:
                img = self.image_processor(images=pil, return_tensors="pt")
                text = self._expand(text, img)
                batch.update(img)
            batch.update(self.tokenizer(text, return_tensors="pt"))
        return {k: (v.to(self.device) if hasattr(v, "to") else v) for k, v in dict(batch).items()}

    def _expand(self, text: str, img: Mapping[str, Any]) -> str:
        """One placeholder per image becomes as many as the vision tower gives (Qwen: grid cells / merge_size^2)."""
        cfg = self.net.config
        token_id = getattr(cfg, "image_token_id", None) or getattr(cfg, "image_token_index", None)
        token = self.tokenizer.convert_ids_to_tokens(int(token_id)) if token_id is not None else _QWEN_IMAGE
        grids = img.get("image_grid_thw")
        if grids is not None:
            merge = int(getattr(self.image_processor, "merge_size", 2))
            counts = [int(g.prod()) // (merge * merge) for g in grids]
        else:
            counts = [int(getattr(cfg, "image_seq_length", 1))] * text.count(token)
        parts = text.split(token)
        if len(parts) - 1 != len(counts):
            raise BackendCallError(f"{self.model_path}: the chat template wrote {len(parts) - 1} image placeholders "
                                   f"for {len(counts)} images", retryable=False)
        out = parts[0]
        for n, rest in zip(counts, parts[1:]):
            out += token * n + rest
        return out

    def complete(self, messages: Sequence[Mapping[str, Any]], images: Sequence[Any], schema: Mapping[str, Any] | None,
                 timeout: float) -> Answer:
        t0 = time.perf_counter()
        try:
            batch = self.inputs(messages, images)
            with self.torch.inference_mode():
                out = self.net.generate(**batch, max_new_tokens=self.max_new_tokens, do_sample=False,
                                        max_time=float(timeout))
        except BackendCallError:
            raise
        except (RuntimeError, ValueError) as e:
            raise BackendCallError(f"{self.model_path}: generate failed: {type(e).__name__}: {e}", retryable=False) from e
        n_in = int(batch["input_ids"].shape[1])
        new = out[0, n_in:]
        text = self.tokenizer.decode(new, skip_special_tokens=True)
        return Answer(text=text, tokens_in=n_in, tokens_out=int(new.shape[0]), latency_s=time.perf_counter() - t0,
                      model=self.model)

    def close(self) -> None:
        self.net = None
