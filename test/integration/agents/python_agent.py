"""A command target in Python: the prompt on stdin, TRACEPARENT continued, one Chat Completions call with the
`openai` package instrumented by OpenInference, spans exported over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT."""
import json
import os
import sys

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

prompt = sys.stdin.read()
case_input = json.loads(os.environ["RUNSPEC_INPUT"])
city = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
tools = [
    {"type": "function", "function": {"name": "get_weather", "description": "Current weather of a city", "parameters": city}},
    {"type": "function", "function": {"name": "get_time", "description": "Local time of a city", "parameters": city}},
]
client = openai.OpenAI(base_url=case_input["vars"]["base_url"], api_key="sk-test-not-a-key", max_retries=0)
token = context.attach(propagate.extract({"traceparent": os.environ["TRACEPARENT"]}))
try:
    reply = client.chat.completions.create(model="fake-model", messages=[*case_input["messages"], {"role": "user", "content": prompt}], tools=tools)
finally:
    context.detach(token)
provider.shutdown()
print(reply.choices[0].message.content or "")
