"""The blog experiments (scripts/reproduce.sh): the plan of runs, the checks of the system before
them, the driver, and the report with its findings and plots."""
