# Source before `runspec-eval run`. OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as given; with
# OTEL_EXPORTER_OTLP_ENDPOINT="https://api.smith.langchain.com/otel" the /v1/traces path is appended.
export LANGSMITH_API_KEY="<your LangSmith API key>"
export OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="https://api.smith.langchain.com/otel/v1/traces"
export OTEL_EXPORTER_OTLP_HEADERS="x-api-key=${LANGSMITH_API_KEY},Langsmith-Project=runspec-evals"
# EU region: https://eu.api.smith.langchain.com/otel/v1/traces
# Self-hosted:  https://<host>/api/v1/otel/v1/traces
# Feedback ([telemetry.langsmith] feedback = true) posts to ${LANGSMITH_ENDPOINT}/feedback; the default is
# https://api.smith.langchain.com. EU: https://eu.api.smith.langchain.com; self-hosted: https://<host>/api/v1
# export LANGSMITH_ENDPOINT="https://api.smith.langchain.com"
