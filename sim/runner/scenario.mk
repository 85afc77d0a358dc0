# sim/runner/scenario.mk — scenario files (docs/scenarios.md): the JSON parser,
# and the scenario runner behind `hcasim run`, --engine both included (scn_int.h
# says which file holds what).
HCASIM_SRCS += sim/runner/json.c \
               sim/runner/scn_schema.c sim/runner/scn_diag.c sim/runner/scn_fields.c sim/runner/scn_names.c \
               sim/runner/scn_load.c sim/runner/scn_cli.c sim/runner/scn_run.c sim/runner/scn_result.c \
               sim/runner/scn_observe.c sim/runner/scn_rec.c sim/runner/scn_both.c sim/runner/scn_waves.c sim/runner/scn_cover.c \
               sim/runner/scn_txn.c \
               sim/runner/scn_ops_setup.c sim/runner/scn_ops_peer.c sim/runner/scn_ops_mr.c sim/runner/scn_ops_wr.c \
               sim/runner/scn_ops_cq.c sim/runner/scn_ops_check.c
