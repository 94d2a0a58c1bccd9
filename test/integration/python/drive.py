"""Drive one Python instrumentation against a local OpenAI-compatible server and export OTLP to a receiver.

    python drive.py PRODUCER on|off OPENAI_BASE_URL OTLP_BASE_URL [OTLP_JSONL_FILE]

With OTLP_JSONL_FILE, the spans and log records are also written there as OTLP/JSON lines (what
test/traces/fixtures/producers/python-*.jsonl were copied from).

PRODUCER: openinference | openai-v2-events | openai-v2-spans | traceloop-attributes | traceloop-events |
langgraph. Each scenario is one trace: an agent span (gen_ai.agent.name names the scenario, which the cases
match on) around the agent loop an application runs: a chat completion, the model's tool call executed
inside the producer's own tool span (OpenInference `OITracer.tool`, Traceloop `@tool`, an `execute_tool` span
from opentelemetry-util-genai for the contrib instrumentation, LangGraph's ToolNode traced by OpenInference's
LangChain instrumentation), and its result sent back. Every content switch is set explicitly before the
instrumentation loads.
"""
import os
import sys

producer, content, base_url, otlp = sys.argv[1], sys.argv[2] == "on", sys.argv[3], sys.argv[4].rstrip("/")
jsonl_file = sys.argv[5] if len(sys.argv) > 5 else None

if producer == "openinference":
    os.environ["OPENINFERENCE_HIDE_INPUTS"] = "false" if content else "true"
    os.environ["OPENINFERENCE_HIDE_OUTPUTS"] = "false" if content else "true"
elif producer == "langgraph":
    os.environ["OPENINFERENCE_HIDE_INPUTS"] = "false" if content else "true"
    os.environ["OPENINFERENCE_HIDE_OUTPUTS"] = "false" if content else "true"
elif producer in ("traceloop-attributes", "traceloop-events"):
    os.environ["TRACELOOP_TRACE_CONTENT"] = "true" if content else "false"
    os.environ["TRACELOOP_TELEMETRY"] = "false"
    os.environ["TRACELOOP_METRICS_ENABLED"] = "false"
    os.environ["TRACELOOP_LOGGING_ENABLED"] = "false"
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
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter  # noqa: E402

resource = Resource.create({"service.name": f"python-{producer}"})
logger_provider = None


def otlp_json(message):
    """An OTLP protobuf message as one OTLP/JSON line (ids in hex, as the OTLP JSON encoding has them)."""
    import base64
    import json

    from google.protobuf.json_format import MessageToDict

    def hex_ids(v):
        if isinstance(v, dict):
            return {k: base64.b64decode(x).hex() if k in ("traceId", "spanId", "parentSpanId") else hex_ids(x) for k, x in v.items()}
        return [hex_ids(x) for x in v] if isinstance(v, list) else v

    return json.dumps(hex_ids(MessageToDict(message)), separators=(",", ":"))


class Tee(SpanExporter):
    """The OTLP exporter, and the same spans as OTLP/JSON lines in jsonl_file."""

    def __init__(self, inner):
        self.inner = inner

    def export(self, spans):
        from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

        with open(jsonl_file, "a") as f:
            f.write(otlp_json(encode_spans(spans)) + "\n")
        return self.inner.export(spans)

    def shutdown(self):
        self.inner.shutdown()

    def force_flush(self, timeout_millis=30000):
        return self.inner.force_flush(timeout_millis)


class TeeLogs:
    """The OTLP log exporter, and the same records as OTLP/JSON lines in jsonl_file."""

    def __init__(self, inner):
        self.inner = inner

    def export(self, batch):
        from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs

        with open(jsonl_file, "a") as f:
            f.write(otlp_json(encode_logs(batch)) + "\n")
        return self.inner.export(batch)

    def shutdown(self):
        self.inner.shutdown()

    def force_flush(self, timeout_millis=30000):
        return self.inner.force_flush(timeout_millis)


exporter = OTLPSpanExporter(endpoint=f"{otlp}/v1/traces")
if jsonl_file:
    exporter = Tee(exporter)


def log_events():
    """A global logger provider exporting OTLP log records (where the instrumentations write their events)."""
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor

    lp = LoggerProvider(resource=resource)
    log_exporter = OTLPLogExporter(endpoint=f"{otlp}/v1/logs")
    lp.add_log_record_processor(SimpleLogRecordProcessor(TeeLogs(log_exporter) if jsonl_file else log_exporter))
    _logs.set_logger_provider(lp)
    return lp


if producer.startswith("traceloop-"):
    # The SDK makes and registers its own tracer provider; the exporter points it at the receiver.
    from traceloop.sdk import Traceloop
    from traceloop.sdk.decorators import tool as traceloop_tool
    from traceloop.sdk.instruments import Instruments

    if producer == "traceloop-events":
        logger_provider = log_events()
    Traceloop.init(
        app_name=f"python-{producer}",
        exporter=exporter,
        disable_batch=True,
        telemetry_enabled=False,
        should_enrich_metrics=False,
        instruments={Instruments.OPENAI},
        use_attributes=producer == "traceloop-attributes",
    )
    tracer_provider = trace.get_tracer_provider()
else:
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(tracer_provider)

if producer == "openinference":
    from openinference.instrumentation import OITracer, TraceConfig
    from openinference.instrumentation.openai import OpenAIInstrumentor

    OpenAIInstrumentor().instrument(tracer_provider=tracer_provider)
elif producer == "langgraph":
    from openinference.instrumentation.langchain import LangChainInstrumentor

    LangChainInstrumentor().instrument(tracer_provider=tracer_provider)
elif producer.startswith("openai-v2-"):
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

    logger_provider = log_events()
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

TOOL_NAMES = ("get_weather", "search", "restart_service", "service_status")
tracer = trace.get_tracer("agent")


def run_tool(name, arguments):
    return f"{name}: ok"


if producer == "langgraph":
    TOOL_FUNCS = None
elif producer == "openinference":
    oi_tracer = OITracer(tracer, config=TraceConfig())
    TOOL_FUNCS = {n: oi_tracer.tool(name=n)(lambda arguments, n=n: run_tool(n, arguments)) for n in TOOL_NAMES}
elif producer.startswith("traceloop-"):
    TOOL_FUNCS = {n: traceloop_tool(name=n)(lambda arguments, n=n: run_tool(n, arguments)) for n in TOOL_NAMES}
else:
    # The contrib instrumentation traces only the model calls; the tool runs in an `execute_tool` span from
    # opentelemetry-util-genai's handler (the helper GenAI-convention instrumentations share).
    from opentelemetry.util.genai.handler import get_telemetry_handler

    handler = get_telemetry_handler(tracer_provider=tracer_provider, logger_provider=logger_provider)

    def genai_tool(n):
        def run(arguments, call_id=None):
            invocation = handler.start_tool(n, arguments=arguments, tool_call_id=call_id, tool_type="function")
            invocation.tool_result = run_tool(n, arguments)
            invocation.stop()
            return invocation.tool_result

        return run

    TOOL_FUNCS = {n: genai_tool(n) for n in TOOL_NAMES}


def openai_agent(client, prompt):
    """The agent loop: a chat completion, each tool call run in its span, the results sent back."""
    messages = [{"role": "user", "content": prompt}]
    reply = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
    calls = reply.choices[0].message.tool_calls or []
    if not calls:
        return
    messages.append(reply.choices[0].message.model_dump(exclude_none=True))
    for c in calls:
        result = TOOL_FUNCS[c.function.name](c.function.arguments)
        messages.append({"role": "tool", "tool_call_id": c.id, "content": result})
    client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)


def langgraph_agent():
    from langchain_core.tools import StructuredTool
    from langchain_openai import ChatOpenAI
    from langgraph.prebuilt import create_react_agent

    def make(n):
        def fn(city: str = "", q: str = "", name: str = "") -> str:
            return run_tool(n, {"city": city, "q": q, "name": name})

        return StructuredTool.from_function(fn, name=n, description=f"{n} tool")

    model = ChatOpenAI(model="gpt-4o-mini", api_key="sk-fixture", base_url=base_url)
    graph = create_react_agent(model, [make(n) for n in TOOL_NAMES])
    return lambda prompt: graph.invoke({"messages": [("user", prompt)]})


if producer == "langgraph":
    run_agent = langgraph_agent()
else:
    client = OpenAI(api_key="sk-fixture", base_url=base_url)
    run_agent = lambda prompt: openai_agent(client, prompt)  # noqa: E731

for agent, prompt in SCENARIOS:
    with tracer.start_as_current_span(f"invoke_agent {agent}", attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent}):
        run_agent(prompt)

tracer_provider.force_flush()
tracer_provider.shutdown()
if logger_provider is not None:
    logger_provider.force_flush()
    logger_provider.shutdown()
