// galloc-model-arch-mistral3.c: the `mistral3` architecture (Mistral Small 3.x, Ministral 3).
//
// As llama.cpp's src/models/mistral3.cpp: llama's tensors and graph, with YaRN's beta and log
// multiplier read from the file. Llama 4's attention temperature tuning (a non-zero
// attention.temperature_scale: an attn_scale input multiplied into Q) is not built: refused.

#include "galloc-model-impl.h"

static bool mistral3_hparams(struct model_loader * ml, struct model_hparams * hp) {
    float temp_scale = 0.0f;
    if (!galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) ||
        !galloc_ml_get_f32(ml, ".attention.temperature_scale", &temp_scale, false) ||
        !galloc_ml_get_f32(ml, ".rope.scaling.yarn_beta_fast", &hp->yarn_beta_fast, false) ||
        !galloc_ml_get_f32(ml, ".rope.scaling.yarn_beta_slow", &hp->yarn_beta_slow, false) ||
        !galloc_ml_get_f32(ml, ".rope.scaling.yarn_log_multiplier", &hp->rope_yarn_log_mul, false)) {
        return false;
    }
    if (temp_scale != 0.0f) {
        return galloc_model_loader_refuse(ml, "%s.attention.temperature_scale: %g (attention temperature tuning) is not built by galloc",
                                          ml->arch, (double) temp_scale);
    }
    return true;
}

const struct model_arch_def galloc_model_arch_mistral3 = {
    "mistral3", MODEL_ROPE_NORM, mistral3_hparams, galloc_model_llama_tensors, galloc_model_llama_graph,
};
