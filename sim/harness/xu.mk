# sim/xu.mk — the translation-unit harness (sim/xu.h), shared by both engines.
HCASIM_SRCS += sim/harness/xu.c sim/harness/trace_window.c
