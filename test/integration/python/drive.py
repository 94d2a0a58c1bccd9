"""Drive one Python instrumentation against a local OpenAI-compatible server and export OTLP to a receiver.

    python drive.py PRODUCER on|off OPENAI_BASE_URL OTLP_BASE_URL

PRODUCER: openinference | openai-v2-events | openai-v2-spans. Each scenario is one trace: an agent span
(gen_ai.agent.name names the scenario, which the cases match on) around one chat completion call.
Every content switch is set explicitly before the instrumentation loads.
"""
import os
import sys

producer, content, base_url, otlp = sys.argv[1], sys.argv[2] == "on", sys.argv[3], sys.argv[4].rstrip("/")

if producer == "openinference":
    os.environ["OPENINFERENCE_HIDE_INPUTS"] = "false" if content else "true"
    os.environ["OPENINFERENCE_HIDE_OUTPUTS"] = "false" if content else "true"
elif producer == "openai-v2-events":
    os.environ.pop("OTEL_SEMCONV_STABILITY_OPT_IN", None)
    os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "true" if content else "false"
elif producer == "openai-v2-spans":
    os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
    os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY" if content else "NO_CONTENT"
else:
    raise SystemExit(f"unknown producer {producer}")

from opentelemetry import trace, _logs  # noqa: E402
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter  # noqa: E402
from opentelemetry.sdk.resources import Resource  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402

resource = Resource.create({"service.name": f"python-{producer}"})
tracer_provider = TracerProvider(resource=resource)
tracer_provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"{otlp}/v1/traces")))
trace.set_tracer_provider(tracer_provider)
logger_provider = None

if producer == "openinference":
    from openinference.instrumentation.openai import OpenAIInstrumentor

    OpenAIInstrumentor().instrument(tracer_provider=tracer_provider)
else:
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

    logger_provider = LoggerProvider(resource=resource)
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(OTLPLogExporter(endpoint=f"{otlp}/v1/logs")))
    _logs.set_logger_provider(logger_provider)
    OpenAIInstrumentor().instrument(tracer_provider=tracer_provider, logger_provider=logger_provider)

from openai import OpenAI  # noqa: E402

SCENARIOS = [
    ("weather-agent", "What is the weather in Paris?"),
    ("news-agent", "Any news about the weather?"),
    ("ops-agent", "Is nginx running?"),
    ("chat-agent", "Say hello."),
]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{name} tool",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "q": {"type": "string"}, "name": {"type": "string"}}},
        },
    }
    for name in ("get_weather", "search", "restart_service", "service_status")
]

client = OpenAI(api_key="sk-fixture", base_url=base_url)
tracer = trace.get_tracer("agent")
for agent, prompt in SCENARIOS:
    with tracer.start_as_current_span(f"invoke_agent {agent}", attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent}):
        client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": prompt}], tools=TOOLS)

tracer_provider.force_flush()
tracer_provider.shutdown()
if logger_provider is not None:
    logger_provider.force_flush()
    logger_provider.shutdown()
