"""An http target in Python: POST /chat with {"messages": [...]} answers {"answer", "tool_calls"}. The `openai`
package is instrumented by OpenInference; spans continue the request's traceparent, go over OTLP/HTTP to
OTEL_EXPORTER_OTLP_ENDPOINT, and are flushed before the answer. Prints its URL, then serves until killed."""
import json
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import openai
from openinference.instrumentation.openai import OpenAIInstrumentor
from opentelemetry import context, propagate, trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
OpenAIInstrumentor().instrument(tracer_provider=provider)

city = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
tools = [
    {"type": "function", "function": {"name": "get_weather", "description": "Current weather of a city", "parameters": city}},
    {"type": "function", "function": {"name": "get_time", "description": "Local time of a city", "parameters": city}},
]
client = openai.OpenAI(base_url=os.environ["MODEL_URL"], api_key="sk-test-not-a-key", max_retries=0)


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        token = context.attach(propagate.extract({"traceparent": self.headers.get("traceparent", "")}))
        try:
            reply = client.chat.completions.create(model="fake-model", messages=body["messages"], tools=tools)
        finally:
            context.detach(token)
        provider.force_flush()
        message = reply.choices[0].message
        calls = [{"id": c.id, "function": {"name": c.function.name, "arguments": c.function.arguments}} for c in (message.tool_calls or [])]
        out = json.dumps({"answer": message.content, "tool_calls": calls}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"http://127.0.0.1:{server.server_address[1]}/chat", flush=True)
server.serve_forever()
