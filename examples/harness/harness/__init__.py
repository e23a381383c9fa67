"""A small agent loop whose hooks run in latch (``latch serve``).

``python -m harness --help`` runs it; :class:`Agent` is the loop.
"""

from .loop import Agent
from .models import Model, ModelError, OpenAIModel, Reply, ScriptedModel, ToolSpec, ToolUse
from .state import Approval, Policy, Turn
from .tools import DEFAULT_NAMES, TOOL_NAMES, ToolNames, Workspace

__all__ = [
    "DEFAULT_NAMES",
    "TOOL_NAMES",
    "Agent",
    "Approval",
    "Model",
    "ModelError",
    "OpenAIModel",
    "Policy",
    "Reply",
    "ScriptedModel",
    "ToolNames",
    "ToolSpec",
    "ToolUse",
    "Turn",
    "Workspace",
]
