"""The systems the harness runs, one module each; ALL is the one list that names them. Adding a
system is adding its module and its entry here."""

from modelbench.systems import (apache_fpm, async_model, blocking, express, fpm, nginx, node, node4,
                                php)
from modelbench.systems.base import ENDPOINTS, Server, System

ALL = [php.SYSTEM, fpm.SYSTEM, apache_fpm.SYSTEM, node.SYSTEM, node4.SYSTEM, express.SYSTEM,
       blocking.SYSTEM, async_model.SYSTEM, nginx.SYSTEM]


def get(name):
    """The system of that name; KeyError when there is none."""
    for system in ALL:
        if system.name == name:
            return system
    raise KeyError(name)


def names():
    return [system.name for system in ALL]


__all__ = ["ALL", "ENDPOINTS", "Server", "System", "get", "names"]
