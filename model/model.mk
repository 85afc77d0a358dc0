# model/ — the C model of the device core (the "model" engine): one file per
# RTL module (m_prim.h: the conventions), hca_core.c the top.
HCASIM_SRCS += model/xu_model.c model/hca_core.c model/hca_ctx.c model/hca_evt.c model/hca_pbuf.c \
               model/hca_xarb.c model/hca_cq_writer.c model/hca_requester.c model/hca_qfifo.c model/hca_req_send.c \
               model/hca_req_resp.c model/hca_sge_mover.c model/hca_responder.c model/hca_resp_place.c
