# memstrata service image: slim, non-root, with a health check.
#   docker build -t memstrata .
#   docker run --rm -e MEMSTRATA_STORAGE__URL=postgresql://... \
#     -e 'MEMSTRATA_SERVICE__API_KEYS={"a-long-secret": default}' -p 8765:8765 memstrata
# The default command serves without migrating: run `memstrata migrate` once first
# (compose.yaml does it in its `migrate` service). See docs/deploy.md.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY src ./src
RUN python -m venv /opt/memstrata \
 && /opt/memstrata/bin/pip install ".[postgres,qdrant]"

FROM python:3.11-slim
RUN useradd --system --uid 10001 --user-group --create-home --home-dir /var/lib/memstrata memstrata
COPY --from=build /opt/memstrata /opt/memstrata
ENV PATH=/opt/memstrata/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    XDG_DATA_HOME=/var/lib/memstrata \
    MEMSTRATA_SERVICE__HOST=0.0.0.0 \
    MEMSTRATA_SERVICE__PORT=8765
USER memstrata
WORKDIR /var/lib/memstrata
EXPOSE 8765
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=4)"]
ENTRYPOINT ["memstrata"]
CMD ["serve", "--no-migrate"]
