# model/ — the C model of the device blocks (the "model" engine).
HCASIM_SRCS += model/xu_model.c
