# roadtest's runner for CARLA 0.9.16: Python 3.11, the carla client wheel, scenario_runner at tag v0.9.16,
# CARLA's PythonAPI `agents` (copied from the CARLA image, where it ships), and roadtest with its carla extra.
# Build from the repository root:  docker build -f docker/runner.Dockerfile -t roadtest-runner .
ARG CARLA_IMAGE=carlasim/carla:0.9.16
FROM ${CARLA_IMAGE} AS carla

FROM python:3.11-slim-bookworm
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends git fonts-dejavu-core fonts-wqy-microhei \
      libgl1 libglib2.0-0 \
 && rm -rf /var/lib/apt/lists/*
RUN git clone --depth 1 --branch v0.9.16 https://github.com/carla-simulator/scenario_runner.git /opt/scenario_runner
COPY --from=carla /home/carla/PythonAPI/carla/agents /opt/carla/PythonAPI/carla/agents
WORKDIR /opt/roadtest
COPY pyproject.toml README.md ./
COPY roadtest ./roadtest
COPY scenarios ./scenarios
# scenario_runner's other needs, unpinned where its pins (numpy 1.24, xmlschema 1.0) clash with Python 3.11 wheels
RUN pip install --no-cache-dir '.[carla]' networkx ephem six
ENV SCENARIO_RUNNER_ROOT=/opt/scenario_runner \
    PYTHONPATH=/opt/carla/PythonAPI/carla \
    HOME=/root
ENTRYPOINT ["roadtest"]
CMD ["--help"]
