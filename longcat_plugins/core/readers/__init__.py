"""Call readers: each reads the body of one call from the text the parser hands it and reports what it read to a
:class:`~.sink.CallSink`, which the parser reads after each read.

* :mod:`.json_value` -- one JSON value, streamed, repaired, always valid JSON;
* :mod:`.json_call` -- ``{"name": ..., "arguments": {...}}``;
* :mod:`.values` -- one parameter value written as plain text;
* :mod:`.markup` -- what the XML and key/value readers share (parameters and their typing);
* :mod:`.xml_call` -- ``<function=NAME><parameter=P>...``;
* :mod:`.kv_call` -- ``NAME<longcat_arg_key>P</longcat_arg_key><longcat_arg_value>...`` in a key/value dialect's tags;
* :mod:`.sep_call` -- a name, a separator, then a JSON object, in a separated dialect's tags;
* :mod:`.quoted_call` -- ``call:NAME{key:<escape>text<escape>,n:3}``: bare keys and quoted values, in its block.
"""

from __future__ import annotations

from .json_call import JsonCallReader
from .kv_call import KvCallReader
from .quoted_call import QuotedCallReader
from .sep_call import SepCallReader
from .sink import CallReader, CallSink, Report
from .xml_call import XmlCallReader, parameters_follow_name

__all__ = [
    "CallReader",
    "CallSink",
    "JsonCallReader",
    "KvCallReader",
    "QuotedCallReader",
    "Report",
    "SepCallReader",
    "XmlCallReader",
    "parameters_follow_name",
]
