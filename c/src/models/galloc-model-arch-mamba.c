// galloc-model-arch-mamba.c: the `mamba` and `mamba2` architectures (Mamba, FalconMamba, Mamba-2).
//
// As llama.cpp's src/models/mamba.cpp and mamba2.cpp: every layer an RMS norm then a Mamba-1 or
// Mamba-2 block (galloc-model-mamba.c) over the recurrent states, output rows selected at the
// last layer, the residual added; no attention and no FFN.

#include "galloc-model-impl.h"

static bool mamba_hparams(struct model_loader * ml, struct model_hparams * hp) {
    if (!galloc_model_ssm_hparams(ml, hp, false) ||
        !galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true)) {
        return false;
    }
    // only an expansion factor of 2 is supported (llama.cpp throws)
    if (2ull * hp->n_embd != hp->ssm_d_inner) {
        return galloc_model_loader_refuse(ml, "%s.ssm.inner_size: %u is not twice embedding_length %u (llama.cpp supports only "
                                          "an expansion factor of 2)", ml->arch, hp->ssm_d_inner, hp->n_embd);
    }
    return true;
}

static bool mamba2_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_model_ssm_hparams(ml, hp, true) &&
           galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true);
}

static bool mamba_tensors_of(struct model_graph * g, bool v2) {
    const struct model_hparams * hp = g->hp;
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer; i++) {
        struct model_layer * l = &g->layers[i];
        l->attn_norm = galloc_model_weight_1d(g, 0, hp->n_embd, "attn_norm.weight", (int) i);
        if (v2) {
            galloc_model_weights_mamba2(g, l, (int) i, false, false);
        } else {
            galloc_model_weights_mamba(g, l, (int) i);
        }
    }
    return !g->failed;
}

static bool mamba_tensors(struct model_graph * g) {
    return mamba_tensors_of(g, false);
}

static bool mamba2_tensors(struct model_graph * g) {
    return mamba_tensors_of(g, true);
}

static bool mamba_graph_of(struct model_graph * g, bool v2) {
    const struct model_hparams * hp = g->hp;
    struct ggml_tensor * inpL = galloc_model_inp_embd(g, g->tok_embd);
    struct model_rs_input rs_inp;
    galloc_model_rs_inp(g, &rs_inp);
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, g->layers[il].attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);
        cur = v2 ? galloc_model_mamba2_layer(g, &rs_inp, cur, il) : galloc_model_mamba_layer(g, &rs_inp, cur, il);
        if (!cur) {
            break;
        }
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            cur  = ggml_get_rows(g->ctx, cur, inp_out_ids);
            inpL = ggml_get_rows(g->ctx, inpL, inp_out_ids);
        }
        cur = ggml_add(g->ctx, cur, inpL);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return !g->failed && galloc_model_logits(g, inpL, 0.0f);
}

static bool mamba_graph(struct model_graph * g) {
    return mamba_graph_of(g, false);
}

static bool mamba2_graph(struct model_graph * g) {
    return mamba_graph_of(g, true);
}

const struct model_arch_def galloc_model_arch_mamba = {
    "mamba", MODEL_ROPE_NORM, mamba_hparams, mamba_tensors, mamba_graph,
};

const struct model_arch_def galloc_model_arch_mamba2 = {
    "mamba2", MODEL_ROPE_NORM, mamba2_hparams, mamba2_tensors, mamba2_graph,
};
