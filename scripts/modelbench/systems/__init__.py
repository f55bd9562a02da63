"""The systems the harness runs, one module each; ALL is the one list that names them."""

from modelbench.systems import (apache_fpm, async_model, blocking, express, fpm, nginx, node, node4,
                                php)
from modelbench.systems.base import ENDPOINTS, Server, System

ALL = [php.SYSTEM, fpm.SYSTEM, apache_fpm.SYSTEM, node.SYSTEM, node4.SYSTEM, express.SYSTEM,
       blocking.SYSTEM, async_model.SYSTEM, nginx.SYSTEM]


def get(name):
    """The system of that name; KeyError when there is none."""
    return {system.name: system for system in ALL}[name]


def names():
    return [system.name for system in ALL]


__all__ = ["ALL", "ENDPOINTS", "Server", "System", "get", "names"]
