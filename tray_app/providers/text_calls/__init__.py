"""Tool calls a model left in its answer's text, recovered as real calls.

Local models often write a call into the answer instead of the structured field: the server's
parser missed it, or its template never had one. Recognised shapes (each test case cites the
public report it comes from, ``tests/fakes/model_shapes.py``):

- ``<tool_call>{"name": …, "arguments": …}</tool_call>`` (qwen2.5, hermes), with a Qwen3-Coder
  ``<function=NAME><parameter=KEY>value</parameter></function>`` body or a GLM
  ``NAME<arg_key>k</arg_key><arg_value>v</arg_value>`` body;
- ``<function=NAME>{…}</function>`` and ``<function=NAME><parameter=…>`` outside a tag;
- ``<|python_tag|>{…}`` (llama3.1; ``;`` between calls, or python-call syntax);
- ``[TOOL_CALLS][{…}]`` (mistral-nemo) and ``[TOOL_CALLS]NAME[ARGS]{…}`` (newer Mistral);
- gpt-oss harmony: ``<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}
  <|call|>``; its ``analysis`` channel becomes reasoning and ``final`` the answer;
- DeepSeek's ``<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME`` + a
  ``json`` fence (or bare JSON) + ``<｜tool▁call▁end｜>`` markers (either bar character);
- gemma's fenced ``tool_code`` block: python-call syntax ``name(a="x")`` read with ``ast``,
  literal values only, nothing evaluated;
- weak shapes, taken only when they are the whole answer and name an offered tool: a bare JSON
  object or list ``{"name": …, "arguments"|"parameters": …}`` (qwen2.5-coder), one fenced
  ``json`` block holding it (llama3.2), or llama3.2's python-call list ``[name(a="x")]``.

Only calls that name a tool offered in this request come back as calls; their arguments go
through ``tool_calls.PendingCall`` (the same repair and bounds as a native call). A marked call
to any other tool, or one that cannot be read, is cut from the text and reported in
``unusable`` so the user can be told, instead of being shown raw markup.

Bounded and linear: every scan moves forward with ``str.find`` or ``JSONDecoder.raw_decode``;
at most ``MAX_CALLS`` calls; text longer than ``MAX_SCAN_CHARS`` is not scanned at all.
``gate.TextCallGate`` is the streaming side: it holds back answer text that may be a call until it
is decided, so a call is never shown as text and then taken away.
"""

from tray_app.providers.text_calls.extract import extract_calls, offered_names
from tray_app.providers.text_calls.found import MAX_CALLS, TextCalls
from tray_app.providers.text_calls.markup import MAX_SCAN_CHARS

__all__ = ["MAX_CALLS", "MAX_SCAN_CHARS", "TextCalls", "extract_calls", "offered_names"]
