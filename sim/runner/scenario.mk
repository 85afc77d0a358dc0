# sim/scenario.mk — scenario files (docs/scenarios.md): the JSON parser, the
# scenario parser/validator and the runner behind `hcasim run`.
HCASIM_SRCS += sim/runner/json.c sim/runner/scenario.c sim/runner/scenario_ops.c
