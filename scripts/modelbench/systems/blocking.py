"""blocking: the C++ model of Apache+PHP (servers/blocking): a thread per connection, blocking
MySQL calls, a new database connection per request, a cap like MaxRequestWorkers."""

from modelbench.systems.base import built_model

SYSTEM = built_model("blocking", 8081, stands_for="php")
