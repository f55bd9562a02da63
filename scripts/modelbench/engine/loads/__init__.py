"""ALL: the load tools by the name a Load gives (engine.loads.base says what the engine asks of
one). slowhttptest is the stress verb's own, not a Load's."""

from modelbench.engine.loads import (ab, hold, idle, mixed, openloop, paused, ports, siege,
                                     slowhttptest, standalone, tasks, wrk)
from modelbench.engine.loads.base import ParseError, StepFailed

ALL = {tool.name: tool for tool in (ab.Ab(), wrk.Wrk(), siege.Siege(), standalone.Standalone(),
                                    tasks.Tasks(), hold.Hold(), openloop.Openloop(),
                                    paused.Paused(), idle.IdleOpenloop(), idle.IdleAb(),
                                    mixed.HeavyOpenloop(), ports.PortsSiege())}

__all__ = ["ALL", "ParseError", "StepFailed", "slowhttptest"]
