# model/ — the C model of the device core (the "model" engine): one file per
# RTL module (m_prim.h: the conventions), hca_core.c the top.
HCASIM_SRCS += model/xu_model.c model/hca_core.c
