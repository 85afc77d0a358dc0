# sim/scenario.mk — scenario files (docs/scenarios.md): the JSON parser, the
# scenario parser/validator and the runner behind `hcasim run`.
HCASIM_SRCS += sim/json.c sim/scenario.c sim/scenario_ops.c
