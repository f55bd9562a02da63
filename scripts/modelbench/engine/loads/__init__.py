"""ALL: the load tools by the name a Load gives (engine.loads.base says what the engine asks of
one). slowhttptest's command and parser serve the stress verb and the slow-* tools."""

from modelbench.engine.loads import (ab, hold, idle, mixed, openloop, paused, ports, siege,
                                     slowattack, slowhttptest, standalone, tasks, wrk)
from modelbench.engine.loads.base import ParseError, StepFailed

ALL = {tool.name: tool for tool in (ab.Ab(), wrk.Wrk(), siege.Siege(), standalone.Standalone(),
                                    tasks.Tasks(), hold.Hold(), openloop.Openloop(),
                                    paused.Paused(), idle.IdleOpenloop(), idle.IdleAb(),
                                    mixed.HeavyOpenloop(), ports.PortsSiege(),
                                    *map(slowattack.SlowAttack, slowattack.MODES))}

__all__ = ["ALL", "ParseError", "StepFailed", "slowhttptest"]
