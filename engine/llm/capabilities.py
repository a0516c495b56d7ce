"""What a model server accepts of tool calling (issue 37 §3).

OpenAI-compatible servers differ: llama.cpp logs "Wrong type supplied for parameter
'tool_choice'" for a named choice and answers text; some accept ``"required"`` but no name;
some never call two tools in one reply or send a call's arguments in one piece. The play app
probes a user's server once ("Test connection") and stores the answer; the master's loop
(``engine.gm.loop``) asks for a forced ``log_event`` only the way the server understands, and
otherwise takes the master's text as its narration. Unknown servers are assumed capable: the
official APIs are, and a wrong guess still ends in the text fallback.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

NAMED = "named"
REQUIRED = "required"
FREE = "auto"


@dataclass(frozen=True)
class Capabilities:
    """What one provider/model accepted when probed; the defaults are the official APIs'."""

    named_tool_choice: bool = True  # tool_choice {"name": ...} is obeyed
    required_tool_choice: bool = True  # tool_choice "required" is obeyed
    parallel_tool_calls: bool = True  # several calls in one reply
    streamed_tool_arguments: bool = True  # a call's arguments arrive in pieces
    probed: bool = False  # False: assumed, never tried

    def forcing(self) -> str:
        """How a call that must be ``log_event`` is asked for: by name, as "required" (with
        ``log_event`` the only tool), or not at all (the text is the narration)."""
        if self.named_tool_choice:
            return NAMED
        return REQUIRED if self.required_tool_choice else FREE

    def to_dict(self) -> dict[str, bool]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> Capabilities:
        """From stored JSON; unknown keys are ignored, missing ones keep the defaults."""
        if not isinstance(data, dict):
            return cls()
        known = cls.__dataclass_fields__
        return cls(**{k: bool(v) for k, v in data.items() if k in known})
