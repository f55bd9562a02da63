"""The stress scenarios (scripts/stress.sh): what each runs against a server and what must hold,
and the tables that put the servers side by side."""
