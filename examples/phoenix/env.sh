# Source before `runspec-eval run` when Phoenix has authentication on (PHOENIX_ENABLE_AUTH=true).
# With eval_annotations = true the key is sent as `Authorization: Bearer ...` on the annotations and on
# the trace export to the same Phoenix. Keys live in the environment only, never in runspec.toml.
export PHOENIX_API_KEY="<your Phoenix API key>"
# Without annotations, authenticate the export through the standard OTLP headers instead:
# export OTEL_EXPORTER_OTLP_HEADERS="authorization=Bearer%20${PHOENIX_API_KEY}"

# Phoenix Cloud instead of a local server (the endpoint variables win over runspec.toml):
# export OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="https://app.phoenix.arize.com/s/<space>/v1/traces"
