# longtalk service image: slim, non-root, with a health check.
#   docker build -t longtalk .
#   docker run --rm -e LONGTALK_STORAGE__URL=postgresql://... \
#     -e 'LONGTALK_SERVICE__API_KEYS={"a-long-secret": default}' -p 8765:8765 longtalk
# The default command serves without migrating: run `longtalk migrate` once first
# (compose.yaml does it in its `migrate` service). See docs/deploy.md.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY src ./src
RUN python -m venv /opt/longtalk \
 && /opt/longtalk/bin/pip install ".[server,postgres,qdrant]"

FROM python:3.11-slim
RUN useradd --system --uid 10001 --user-group --create-home --home-dir /var/lib/longtalk longtalk
COPY --from=build /opt/longtalk /opt/longtalk
ENV PATH=/opt/longtalk/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    XDG_DATA_HOME=/var/lib/longtalk \
    LONGTALK_SERVICE__HOST=0.0.0.0 \
    LONGTALK_SERVICE__PORT=8765
USER longtalk
WORKDIR /var/lib/longtalk
EXPOSE 8765
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=4)"]
ENTRYPOINT ["longtalk"]
CMD ["serve", "--no-migrate"]
