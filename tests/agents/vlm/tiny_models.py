"""TEST-ONLY tiny random vision-language models (LLaVA, Qwen2-VL, Idefics3), built from configs with a byte-level
BPE tokenizer trained in memory, saved with save_pretrained. Nothing is downloaded; their output is random
text, which is what the parse and fallback paths need.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["build_tiny", "FAMILIES"]

FAMILIES = ("llava", "qwen2vl", "idefics3")

_SPECIALS = {
    "llava": ["<s>", "</s>", "<pad>", "<image>"],
    "qwen2vl": ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>", "<|image_pad|>",
                "<|video_pad|>"],
    "idefics3": ["<s>", "</s>", "<pad>", "<fake_token_around_image>", "<image>", "<global-img>", "<end_of_utterance>"],
}

_PART = ("{% if m['content'] is string %}{{ m['content'] }}{% else %}{% for c in m['content'] %}"
         "{% if c['type'] == 'image' %}IMAGE{% else %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}")
_TEMPLATES = {
    "llava": "{% for m in messages %}" + _PART.replace("IMAGE", "<image>\n") + "\n{% endfor %}"
             "{% if add_generation_prompt %}ASSISTANT:{% endif %}",
    "qwen2vl": "{% for m in messages %}<|im_start|>{{ m['role'] }}\n"
               + _PART.replace("IMAGE", "<|vision_start|><|image_pad|><|vision_end|>")
               + "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}",
    "idefics3": "{% for m in messages %}User:" + _PART.replace("IMAGE", "<image>")
                + "<end_of_utterance>\n{% endfor %}{% if add_generation_prompt %}Assistant:{% endif %}",
}


def _tokenizer(family: str):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    corpus = ['{"waypoints": [[1.0, 0.0]], "target_speed": 30, "reason": "stop sign ahead"}',
              "You drive a car in Germany. signs light road_users speed_limit stop yield red green none"] * 20
    tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=400, special_tokens=_SPECIALS[family],
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    eos = {"llava": "</s>", "qwen2vl": "<|im_end|>", "idefics3": "<end_of_utterance>"}[family]
    pad = {"llava": "<pad>", "qwen2vl": "<|endoftext|>", "idefics3": "<pad>"}[family]
    return PreTrainedTokenizerFast(tokenizer_object=tok, chat_template=_TEMPLATES[family], eos_token=eos, pad_token=pad)


def _text_config(tok, **extra):
    from transformers import LlamaConfig

    return LlamaConfig(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                       num_key_value_heads=2, max_position_embeddings=1024, pad_token_id=tok.pad_token_id,
                       eos_token_id=tok.eos_token_id, bos_token_id=tok.eos_token_id, **extra)


def build_tiny(family: str, folder: Path) -> Path:
    """Build, seed and save one tiny model with its processor parts into `folder`; return the folder."""
    import torch
    from transformers import AutoModelForImageTextToText

    torch.manual_seed(0)
    tok = _tokenizer(family)
    ids = tok.convert_tokens_to_ids
    if family == "llava":
        from transformers import CLIPImageProcessorPil, CLIPVisionConfig, LlavaConfig, LlavaProcessor

        cfg = LlavaConfig(vision_config=CLIPVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                                         num_attention_heads=2, image_size=224, patch_size=32),
                          text_config=_text_config(tok), image_token_index=ids("<image>"), image_seq_length=49,
                          vision_feature_select_strategy="default", vision_feature_layer=-1)
        proc = LlavaProcessor(image_processor=CLIPImageProcessorPil(size={"shortest_edge": 224},
                                                                     crop_size={"height": 224, "width": 224}),
                              tokenizer=tok, patch_size=32, vision_feature_select_strategy="default",
                              num_additional_image_tokens=1, image_token="<image>", chat_template=_TEMPLATES[family])
    elif family == "qwen2vl":
        from transformers import Qwen2VLConfig, Qwen2VLImageProcessorPil

        cfg = Qwen2VLConfig(
            text_config=dict(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                             num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=1024,
                             rope_parameters={"rope_type": "default", "mrope_section": [2, 3, 3], "rope_theta": 1e4},
                             pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id, bos_token_id=tok.eos_token_id),
            vision_config=dict(depth=2, embed_dim=32, hidden_size=64, num_heads=2, mlp_ratio=2, patch_size=14,
                               spatial_merge_size=2, temporal_patch_size=2),
            image_token_id=ids("<|image_pad|>"), video_token_id=ids("<|video_pad|>"),
            vision_start_token_id=ids("<|vision_start|>"), vision_end_token_id=ids("<|vision_end|>"))
        proc = None
        image_proc = Qwen2VLImageProcessorPil(min_pixels=56 * 56, max_pixels=224 * 224, patch_size=14,
                                              temporal_patch_size=2, merge_size=2)
    else:
        from transformers import Idefics3Config, Idefics3ImageProcessorPil, Idefics3Processor

        cfg = Idefics3Config(vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                                num_attention_heads=2, image_size=224, patch_size=28),
                             text_config=_text_config(tok), scale_factor=2, image_token_id=ids("<image>"))
        proc = Idefics3Processor(image_processor=Idefics3ImageProcessorPil(do_image_splitting=False,
                                                                            size={"longest_edge": 224},
                                                                            max_image_size={"longest_edge": 224}),
                                 tokenizer=tok, image_seq_len=16, chat_template=_TEMPLATES[family])
    model = AutoModelForImageTextToText.from_config(cfg)
    model.save_pretrained(folder)
    if proc is not None:
        proc.save_pretrained(folder)
    else:
        tok.save_pretrained(folder)
        image_proc.save_pretrained(folder)
    return folder
