#!/usr/bin/env python3
"""make-ggufs.py: the metadata-only GGUF files of tests/models-real-archs (real models' shapes).

Each model is what llama.cpp's convert_hf_to_gguf.py (3f545bec, conversion/*.py) writes for the
model's published Hugging Face config.json: the KV pairs its set_gguf_parameters writes, and the
tensor infos of the converted checkpoint (the tensors the checkpoint has, after the converter's
merges and splits), F32 for 1-D tensors and the tensors the converter keeps in F32, F16 otherwise.
No tokenizer: tokenizer.ggml.model = "no_vocab". No tensor data (extend with
`truncate -s $(python3 ../../../shared/models-real/gguf-full-length.py F) F` before llama.cpp loads it).

usage: make-ggufs.py [NAME ...]   (writes gguf/NAME.meta.gguf; manifest.tsv lists the models)
"""
import os
import sys

import gguf_meta as G

HERE = os.path.dirname(os.path.abspath(__file__))


class Model:
    def __init__(self, name, arch, source):
        self.name, self.arch, self.source = name, arch, source
        self.kvs = [('general.architecture', G.STR, arch), ('general.name', G.STR, name)]
        self.tensors = []

    def kv(self, key, value, t=None):
        """key: '.x' is ARCH.x; the type follows the converter's writer (int: uint32, float: float32)."""
        if key.startswith('.'):
            key = self.arch + key
        if t is None:
            if isinstance(value, bool):
                t = G.BOOL
            elif isinstance(value, int):
                t = G.U32
            elif isinstance(value, float):
                t = G.F32V
            elif isinstance(value, str):
                t = G.STR
            elif isinstance(value, list):
                et = G.F32V if any(isinstance(x, float) for x in value) else (G.BOOL if all(isinstance(x, bool) for x in value) else G.I32)
                value, t = (et, value), G.ARR
        # a key written twice keeps its first place and the last value (gguf-py's writer overwrites)
        for j, (k, _, _) in enumerate(self.kvs):
            if k == key:
                self.kvs[j] = (key, t, value)
                return self
        self.kvs.append((key, t, value))
        return self

    def t(self, name, *ne, f32=False):
        ty = G.F32 if f32 or len(ne) == 1 else G.F16
        self.tensors.append((name, list(ne), ty))
        return self

    def finish(self, n_vocab):
        """the file type, and no tokenizer: the vocabulary's size alone (as the converter writes without one)"""
        self.kv('general.file_type', 1)
        self.kv('tokenizer.ggml.model', 'no_vocab')
        self.kv('.vocab_size', n_vocab)
        return self


MODELS = {}


def model(fn):
    MODELS[fn.__name__.replace('_', '-')] = fn
    return fn


def base(m, c, n_ff=None, head_count_kv=None, eps_key='.attention.layer_norm_rms_epsilon'):
    """TextModel.set_gguf_parameters: the keys every architecture gets from config.json."""
    m.kv('.block_count', c['num_hidden_layers'])
    m.kv('.context_length', c['max_position_embeddings'])
    m.kv('.embedding_length', c['hidden_size'])
    if n_ff is not None:
        m.kv('.feed_forward_length', n_ff)
    m.kv('.attention.head_count', c['num_attention_heads'])
    m.kv('.attention.head_count_kv', head_count_kv if head_count_kv is not None else c['num_key_value_heads'])
    return m


def textmodel(m, c):
    """TextModel.set_gguf_parameters on a config.json (the keys a config has; no rope scaling)"""
    m.kv('.block_count', c['num_hidden_layers'])
    m.kv('.context_length', c['max_position_embeddings'])
    m.kv('.embedding_length', c['hidden_size'])
    if 'intermediate_size' in c:
        m.kv('.feed_forward_length', c['intermediate_size'])
    m.kv('.attention.head_count', c['num_attention_heads'])
    if 'num_key_value_heads' in c:
        m.kv('.attention.head_count_kv', c['num_key_value_heads'])
    if 'rope_theta' in c:
        m.kv('.rope.freq_base', float(c['rope_theta']))
    if 'rms_norm_eps' in c:
        m.kv('.attention.layer_norm_rms_epsilon', float(c['rms_norm_eps']))
    if 'layer_norm_eps' in c:
        m.kv('.attention.layer_norm_epsilon', float(c['layer_norm_eps']))
    for k in ('num_local_experts', 'num_experts', 'n_routed_experts'):
        if c.get(k) is not None:
            m.kv('.expert_count', c[k])
            break
    if c.get('num_experts_per_tok') is not None:
        m.kv('.expert_used_count', c['num_experts_per_tok'])
    if c.get('head_dim') is not None:
        m.kv('.attention.key_length', c['head_dim']).kv('.attention.value_length', c['head_dim'])
    return m.finish(c['vocab_size'])


def rope_yarn(m, factor, orig, beta_fast=None, beta_slow=None):
    m.kv('.rope.scaling.type', 'yarn').kv('.rope.scaling.factor', float(factor))
    m.kv('.rope.scaling.original_context_length', orig)
    if beta_fast is not None:
        m.kv('.rope.scaling.yarn_beta_fast', float(beta_fast))
    if beta_slow is not None:
        m.kv('.rope.scaling.yarn_beta_slow', float(beta_slow))
    return m


def tok_out(m, n_embd, n_vocab, tied=False):
    m.t('token_embd.weight', n_embd, n_vocab)
    m.t('output_norm.weight', n_embd)
    if not tied:
        m.t('output.weight', n_embd, n_vocab)


def ffn(m, i, n_embd, n_ff, suffix=''):
    m.t(f'blk.{i}.ffn_gate{suffix}.weight', n_embd, n_ff)
    m.t(f'blk.{i}.ffn_down{suffix}.weight', n_ff, n_embd)
    m.t(f'blk.{i}.ffn_up{suffix}.weight', n_embd, n_ff)


def experts(m, i, n_embd, n_ff_exp, n_expert):
    m.t(f'blk.{i}.ffn_gate_inp.weight', n_embd, n_expert, f32=True)
    m.t(f'blk.{i}.ffn_down_exps.weight', n_ff_exp, n_embd, n_expert)
    m.t(f'blk.{i}.ffn_gate_exps.weight', n_embd, n_ff_exp, n_expert)
    m.t(f'blk.{i}.ffn_up_exps.weight', n_embd, n_ff_exp, n_expert)


#
# deepseek2 (conversion/deepseek.py DeepseekV2Model): MLA converted to MQA with k_b/v_b split
#

def deepseek2(name, source, c):
    m = Model(name, 'deepseek2', source)
    base(m, c, n_ff=c['intermediate_size'], head_count_kv=1)
    rs = c.get('rope_scaling')
    if rs and rs.get('type', rs.get('rope_type')) == 'yarn':
        rope_yarn(m, rs['factor'], rs['original_max_position_embeddings'], rs.get('beta_fast'), rs.get('beta_slow'))
    m.kv('.rope.freq_base', float(c['rope_theta']))
    m.kv('.attention.layer_norm_rms_epsilon', float(c['rms_norm_eps']))
    m.kv('.expert_count', c['n_routed_experts']).kv('.expert_used_count', c['num_experts_per_tok'])
    if c.get('n_group') is not None:
        m.kv('.expert_group_count', c['n_group'])
    if c.get('topk_group') is not None:
        m.kv('.expert_group_used_count', c['topk_group'])
    m.kv('.expert_gating_func', {'softmax': 1, 'sigmoid': 2}[c['scoring_func']])
    m.kv('.leading_dense_block_count', c['first_k_dense_replace'])
    m.kv('.vocab_size', c['vocab_size'])
    if c.get('q_lora_rank') is not None:
        m.kv('.attention.q_lora_rank', c['q_lora_rank'])
    kv_lora, rope, nope, v = c['kv_lora_rank'], c['qk_rope_head_dim'], c['qk_nope_head_dim'], c['v_head_dim']
    m.kv('.attention.kv_lora_rank', kv_lora)
    m.kv('.attention.key_length', kv_lora + rope).kv('.attention.value_length', kv_lora)
    m.kv('.attention.key_length_mla', nope + rope).kv('.attention.value_length_mla', v)
    m.kv('.expert_feed_forward_length', c['moe_intermediate_size'])
    m.kv('.expert_count', c['n_routed_experts'])
    m.kv('.expert_shared_count', c['n_shared_experts'])
    if c.get('routed_scaling_factor') is not None:
        m.kv('.expert_weights_scale', float(c['routed_scaling_factor']))
    if c.get('norm_topk_prob'):
        m.kv('.expert_weights_norm', True)
    m.kv('.rope.dimension_count', rope)
    if rs and rs.get('mscale_all_dim') is not None:
        m.kv('.rope.scaling.yarn_log_multiplier', float(0.1 * rs['mscale_all_dim']))
    m.finish(c['vocab_size'])
    E, H, V = c['hidden_size'], c['num_attention_heads'], c['vocab_size']
    tok_out(m, E, V, c.get('tie_word_embeddings', False))
    for i in range(c['num_hidden_layers']):
        m.t(f'blk.{i}.attn_norm.weight', E)
        if c.get('q_lora_rank') is not None:
            m.t(f'blk.{i}.attn_q_a_norm.weight', c['q_lora_rank'])
            m.t(f'blk.{i}.attn_q_a.weight', E, c['q_lora_rank'])
            m.t(f'blk.{i}.attn_q_b.weight', c['q_lora_rank'], H * (nope + rope))
        else:
            m.t(f'blk.{i}.attn_q.weight', E, H * (nope + rope))
        m.t(f'blk.{i}.attn_kv_a_norm.weight', kv_lora)
        m.t(f'blk.{i}.attn_kv_a_mqa.weight', E, kv_lora + rope)
        m.t(f'blk.{i}.attn_k_b.weight', nope, kv_lora, H)
        m.t(f'blk.{i}.attn_v_b.weight', kv_lora, v, H)
        m.t(f'blk.{i}.attn_output.weight', H * v, E)
        m.t(f'blk.{i}.ffn_norm.weight', E)
        if i < c['first_k_dense_replace']:
            ffn(m, i, E, c['intermediate_size'])
        else:
            experts(m, i, E, c['moe_intermediate_size'], c['n_routed_experts'])
            if c.get('topk_method') == 'noaux_tc':
                m.t(f'blk.{i}.exp_probs_b.bias', c['n_routed_experts'])
            ffn(m, i, E, c['moe_intermediate_size'] * c['n_shared_experts'], '_shexp')
    return m


@model
def deepseek_v2_lite():
    return deepseek2('deepseek-v2-lite', 'deepseek-ai/DeepSeek-V2-Lite', dict(
        vocab_size=102400, hidden_size=2048, intermediate_size=10944, moe_intermediate_size=1408,
        num_hidden_layers=27, num_attention_heads=16, num_key_value_heads=16, n_shared_experts=2,
        n_routed_experts=64, routed_scaling_factor=1.0, kv_lora_rank=512, q_lora_rank=None,
        qk_rope_head_dim=64, v_head_dim=128, qk_nope_head_dim=128, topk_method='greedy', n_group=1,
        topk_group=1, num_experts_per_tok=6, first_k_dense_replace=1, norm_topk_prob=False,
        scoring_func='softmax', max_position_embeddings=163840, rope_theta=10000, rms_norm_eps=1e-6,
        rope_scaling=dict(type='yarn', factor=40, original_max_position_embeddings=4096, beta_fast=32,
                          beta_slow=1, mscale=0.707, mscale_all_dim=0.707),
        tie_word_embeddings=False))


@model
def deepseek_v3():
    return deepseek2('deepseek-v3', 'deepseek-ai/DeepSeek-V3', dict(
        vocab_size=129280, hidden_size=7168, intermediate_size=18432, moe_intermediate_size=2048,
        num_hidden_layers=61, num_attention_heads=128, num_key_value_heads=128, n_shared_experts=1,
        n_routed_experts=256, routed_scaling_factor=2.5, kv_lora_rank=512, q_lora_rank=1536,
        qk_rope_head_dim=64, v_head_dim=128, qk_nope_head_dim=128, topk_method='noaux_tc', n_group=8,
        topk_group=4, num_experts_per_tok=8, first_k_dense_replace=3, norm_topk_prob=True,
        scoring_func='sigmoid', max_position_embeddings=163840, rope_theta=10000, rms_norm_eps=1e-6,
        rope_scaling=dict(type='yarn', factor=40, original_max_position_embeddings=4096, beta_fast=32,
                          beta_slow=1, mscale=1.0, mscale_all_dim=1.0),
        tie_word_embeddings=False))


#
# glm4moe (conversion/glm.py Glm4MoeModel): the MTP layer is a block of its own after the others
#

def attn_qkv(m, i, n_embd, n_q, n_kv, bias=False, o_bias=False):
    m.t(f'blk.{i}.attn_q.weight', n_embd, n_q)
    m.t(f'blk.{i}.attn_k.weight', n_embd, n_kv)
    m.t(f'blk.{i}.attn_v.weight', n_embd, n_kv)
    if bias:
        m.t(f'blk.{i}.attn_q.bias', n_q).t(f'blk.{i}.attn_k.bias', n_kv).t(f'blk.{i}.attn_v.bias', n_kv)
    m.t(f'blk.{i}.attn_output.weight', n_q, n_embd)
    if o_bias:
        m.t(f'blk.{i}.attn_output.bias', n_embd)


def glm4moe(name, source, c):
    m = Model(name, 'glm4moe', source)
    nextn = c.get('num_nextn_predict_layers', 0)
    n_layer = c['num_hidden_layers'] + nextn
    base(m, dict(c, num_hidden_layers=n_layer), n_ff=c['intermediate_size'])
    m.kv('.rope.freq_base', float(c['rope_theta']))
    m.kv('.attention.layer_norm_rms_epsilon', float(c['rms_norm_eps']))
    m.kv('.expert_count', c['n_routed_experts']).kv('.expert_used_count', c['num_experts_per_tok'])
    m.kv('.expert_group_count', c['n_group']).kv('.expert_group_used_count', c['topk_group'])
    m.kv('.attention.key_length', c['head_dim']).kv('.attention.value_length', c['head_dim'])
    m.finish(c['vocab_size'])
    m.kv('.rope.dimension_count', int(c['head_dim'] * c.get('partial_rotary_factor', 0.5)))
    m.kv('.expert_count', c['n_routed_experts'])
    m.kv('.expert_feed_forward_length', c['moe_intermediate_size'])
    m.kv('.expert_shared_count', c['n_shared_experts'])
    m.kv('.leading_dense_block_count', c['first_k_dense_replace'])
    m.kv('.expert_gating_func', 2)
    m.kv('.expert_weights_scale', float(c['routed_scaling_factor']))
    m.kv('.expert_weights_norm', c['norm_topk_prob'])
    m.kv('.nextn_predict_layers', nextn)
    E, H, KV, D, V = c['hidden_size'], c['num_attention_heads'], c['num_key_value_heads'], c['head_dim'], c['vocab_size']
    tok_out(m, E, V)
    for i in range(n_layer):
        m.t(f'blk.{i}.attn_norm.weight', E)
        attn_qkv(m, i, E, H * D, KV * D, bias=c['attention_bias'])
        if c.get('use_qk_norm'):
            m.t(f'blk.{i}.attn_q_norm.weight', D).t(f'blk.{i}.attn_k_norm.weight', D)
        m.t(f'blk.{i}.post_attention_norm.weight', E)
        if i < c['first_k_dense_replace']:
            ffn(m, i, E, c['intermediate_size'])
        else:
            experts(m, i, E, c['moe_intermediate_size'], c['n_routed_experts'])
            m.t(f'blk.{i}.exp_probs_b.bias', c['n_routed_experts'])
            ffn(m, i, E, c['moe_intermediate_size'] * c['n_shared_experts'], '_shexp')
        if i >= c['num_hidden_layers']:
            m.t(f'blk.{i}.nextn.eh_proj.weight', 2 * E, E)
            m.t(f'blk.{i}.nextn.enorm.weight', E).t(f'blk.{i}.nextn.hnorm.weight', E)
            m.t(f'blk.{i}.nextn.shared_head_norm.weight', E)
    return m


@model
def glm_4_5_air():
    return glm4moe('glm-4.5-air', 'zai-org/GLM-4.5-Air', dict(
        attention_bias=True, head_dim=128, hidden_size=4096, partial_rotary_factor=0.5, intermediate_size=10944,
        max_position_embeddings=131072, moe_intermediate_size=1408, norm_topk_prob=True, num_attention_heads=96,
        n_group=1, topk_group=1, n_routed_experts=128, n_shared_experts=1, routed_scaling_factor=1.0,
        num_experts_per_tok=8, first_k_dense_replace=1, num_hidden_layers=46, num_key_value_heads=8,
        rms_norm_eps=1e-5, rope_theta=1000000, num_nextn_predict_layers=1, use_qk_norm=False, vocab_size=151552))


#
# dense classics: phi3 (conversion/phi.py Phi3MiniModel), gemma2 (gemma.py Gemma2Model)
#

@model
def phi_4():
    c = dict(hidden_size=5120, num_hidden_layers=40, num_attention_heads=40, num_key_value_heads=10,
             intermediate_size=17920, vocab_size=100352, max_position_embeddings=16384,
             original_max_position_embeddings=16384, rope_theta=250000.0, rms_norm_eps=1e-5, sliding_window=None)
    m = Model('phi-4', 'phi3', 'microsoft/phi-4')
    E, H, KV, F, V = c['hidden_size'], c['num_attention_heads'], c['num_key_value_heads'], c['intermediate_size'], c['vocab_size']
    m.kv('.context_length', c['max_position_embeddings'])
    m.kv('.rope.scaling.original_context_length', c['original_max_position_embeddings'])
    m.kv('.embedding_length', E).kv('.feed_forward_length', F).kv('.block_count', c['num_hidden_layers'])
    m.kv('.attention.head_count', H).kv('.attention.head_count_kv', KV)
    m.kv('.attention.layer_norm_rms_epsilon', c['rms_norm_eps'])
    m.kv('.rope.dimension_count', E // H).kv('.rope.freq_base', c['rope_theta'])
    m.finish(V)
    m.kv('.attention.sliding_window', c['sliding_window'] or 0)
    D = E // H
    tok_out(m, E, V)
    for i in range(c['num_hidden_layers']):
        m.t(f'blk.{i}.attn_norm.weight', E)
        m.t(f'blk.{i}.attn_qkv.weight', E, (H + 2 * KV) * D)
        m.t(f'blk.{i}.attn_output.weight', H * D, E)
        m.t(f'blk.{i}.ffn_norm.weight', E)
        m.t(f'blk.{i}.ffn_up.weight', E, 2 * F)
        m.t(f'blk.{i}.ffn_down.weight', F, E)
    return m


@model
def gemma_2_9b():
    c = dict(hidden_size=3584, intermediate_size=14336, num_hidden_layers=42, num_attention_heads=16,
             num_key_value_heads=8, head_dim=256, max_position_embeddings=8192, rms_norm_eps=1e-6,
             attn_logit_softcapping=50.0, final_logit_softcapping=30.0, sliding_window=4096, vocab_size=256000)
    m = Model('gemma-2-9b', 'gemma2', 'google/gemma-2-9b')
    E, H, KV, D, F, V = (c[k] for k in ('hidden_size', 'num_attention_heads', 'num_key_value_heads', 'head_dim',
                                        'intermediate_size', 'vocab_size'))
    m.kv('.context_length', c['max_position_embeddings']).kv('.embedding_length', E)
    m.kv('.block_count', c['num_hidden_layers']).kv('.feed_forward_length', F)
    m.kv('.attention.head_count', H).kv('.attention.head_count_kv', KV)
    m.kv('.attention.layer_norm_rms_epsilon', c['rms_norm_eps'])
    m.kv('.attention.key_length', D).kv('.attention.value_length', D)
    m.finish(V)
    m.kv('.attn_logit_softcapping', c['attn_logit_softcapping'])
    m.kv('.final_logit_softcapping', c['final_logit_softcapping'])
    m.kv('.attention.sliding_window', c['sliding_window'])
    tok_out(m, E, V, tied=True)
    for i in range(c['num_hidden_layers']):
        m.t(f'blk.{i}.attn_norm.weight', E)
        attn_qkv(m, i, E, H * D, KV * D)
        m.t(f'blk.{i}.post_attention_norm.weight', E)
        m.t(f'blk.{i}.ffn_norm.weight', E)
        ffn(m, i, E, F)
        m.t(f'blk.{i}.post_ffw_norm.weight', E)
    return m


#
# lfm2 (conversion/lfm2.py LFM2Model): short-convolution blocks and attention blocks
#

@model
def lfm2_1_2b():
    attn = {2, 5, 8, 10, 12, 14}
    c = dict(hidden_size=2048, num_hidden_layers=16, num_attention_heads=32, num_key_value_heads=8,
             block_ff_dim=12288, block_auto_adjust_ff_dim=True, block_ffn_dim_multiplier=1.0, block_multiple_of=256,
             conv_L_cache=3, max_position_embeddings=128000, norm_eps=1e-5, rope_theta=1000000.0, vocab_size=65536)
    m = Model('lfm2-1.2b', 'lfm2', 'LiquidAI/LFM2-1.2B')
    E, H, KV, V, n = c['hidden_size'], c['num_attention_heads'], c['num_key_value_heads'], c['vocab_size'], c['num_hidden_layers']
    ff = int(2 * c['block_ff_dim'] / 3)
    ff = int(c['block_ffn_dim_multiplier'] * ff)
    ff = c['block_multiple_of'] * ((ff + c['block_multiple_of'] - 1) // c['block_multiple_of'])
    m.kv('.block_count', n).kv('.context_length', c['max_position_embeddings']).kv('.embedding_length', E)
    m.kv('.feed_forward_length', c['block_ff_dim'])
    m.kv('.attention.head_count', H).kv('.attention.head_count_kv', [KV if i in attn else 0 for i in range(n)])
    m.kv('.rope.freq_base', c['rope_theta']).kv('.attention.layer_norm_rms_epsilon', c['norm_eps'])
    m.finish(V)
    m.kv('.shortconv.l_cache', c['conv_L_cache'])
    m.kv('.feed_forward_length', ff)
    D = E // H
    m.t('token_embd.weight', E, V)
    m.t('token_embd_norm.weight', E)
    for i in range(n):
        m.t(f'blk.{i}.attn_norm.weight', E)
        if i in attn:
            m.t(f'blk.{i}.attn_q_norm.weight', D).t(f'blk.{i}.attn_k_norm.weight', D)
            attn_qkv(m, i, E, H * D, KV * D)
        else:
            m.t(f'blk.{i}.shortconv.in_proj.weight', E, 3 * E)
            m.t(f'blk.{i}.shortconv.conv.weight', c['conv_L_cache'], E, f32=True)
            m.t(f'blk.{i}.shortconv.out_proj.weight', E, E)
        m.t(f'blk.{i}.ffn_norm.weight', E)
        ffn(m, i, E, ff)
    return m


@model
def olmoe_1b_7b():
    c = dict(hidden_size=2048, intermediate_size=1024, num_hidden_layers=16, num_attention_heads=16,
             num_key_value_heads=16, num_experts=64, num_experts_per_tok=8, max_position_embeddings=4096,
             rope_theta=10000.0, rms_norm_eps=1e-5, vocab_size=50304)
    m = textmodel(Model('olmoe-1b-7b', 'olmoe', 'allenai/OLMoE-1B-7B-0924'), c)
    m.kv('.attention.layer_norm_rms_epsilon', 1e-5)
    E, V = c['hidden_size'], c['vocab_size']
    tok_out(m, E, V)
    for i in range(c['num_hidden_layers']):
        m.t(f'blk.{i}.attn_norm.weight', E)
        attn_qkv(m, i, E, E, E)
        m.t(f'blk.{i}.attn_q_norm.weight', E).t(f'blk.{i}.attn_k_norm.weight', E)
        m.t(f'blk.{i}.ffn_norm.weight', E)
        experts(m, i, E, c['intermediate_size'], c['num_experts'])
    return m


#
# qwen3next (conversion/qwen.py Qwen3NextModel on Qwen2MoeModel): gated delta-net blocks, every
# fourth block gated full attention; the MTP block after them unless converted with --no-mtp
#

def qwen3next(name, source, c, mtp):
    m = textmodel(Model(name, 'qwen3next', source), dict(c, num_hidden_layers=c['num_hidden_layers'] + mtp))
    m.kv('.expert_feed_forward_length', c['moe_intermediate_size'])
    m.kv('.expert_shared_feed_forward_length', c['shared_expert_intermediate_size'])
    hk, hv, nk, nv = c['linear_key_head_dim'], c['linear_value_head_dim'], c['linear_num_key_heads'], c['linear_num_value_heads']
    m.kv('.ssm.conv_kernel', c['linear_conv_kernel_dim']).kv('.ssm.state_size', hk)
    m.kv('.ssm.group_count', nk).kv('.ssm.time_step_rank', nv).kv('.ssm.inner_size', hv * nv)
    m.kv('.full_attention_interval', c['full_attention_interval'])
    m.kv('.rope.dimension_count', int(c['head_dim'] * c['partial_rotary_factor']))
    if mtp:
        m.kv('.nextn_predict_layers', mtp)
    E, H, KV, D, V, X = (c[k] for k in ('hidden_size', 'num_attention_heads', 'num_key_value_heads', 'head_dim',
                                        'vocab_size', 'num_experts'))
    tok_out(m, E, V)
    n = c['num_hidden_layers']
    for i in range(n + mtp):
        m.t(f'blk.{i}.attn_norm.weight', E)
        m.t(f'blk.{i}.post_attention_norm.weight', E)
        if i >= n or (i + 1) % c['full_attention_interval'] == 0:
            m.t(f'blk.{i}.attn_q.weight', E, 2 * H * D)
            m.t(f'blk.{i}.attn_k.weight', E, KV * D).t(f'blk.{i}.attn_v.weight', E, KV * D)
            m.t(f'blk.{i}.attn_output.weight', H * D, E)
            m.t(f'blk.{i}.attn_q_norm.weight', D).t(f'blk.{i}.attn_k_norm.weight', D)
        else:
            m.t(f'blk.{i}.attn_qkv.weight', E, 2 * hk * nk + hv * nv)
            m.t(f'blk.{i}.attn_gate.weight', E, hv * nv)
            m.t(f'blk.{i}.ssm_ba.weight', E, 2 * nv)
            m.t(f'blk.{i}.ssm_conv1d.weight', c['linear_conv_kernel_dim'], 2 * hk * nk + hv * nv, f32=True)
            m.t(f'blk.{i}.ssm_dt.bias', nv).t(f'blk.{i}.ssm_a', nv).t(f'blk.{i}.ssm_norm.weight', hv)
            m.t(f'blk.{i}.ssm_out.weight', hv * nv, E)
        experts(m, i, E, c['moe_intermediate_size'], X)
        ffn(m, i, E, c['shared_expert_intermediate_size'], '_shexp')
        m.t(f'blk.{i}.ffn_gate_inp_shexp.weight', E)
        if i >= n:
            m.t(f'blk.{i}.nextn.eh_proj.weight', 2 * E, E)
            m.t(f'blk.{i}.nextn.enorm.weight', E).t(f'blk.{i}.nextn.hnorm.weight', E)
            m.t(f'blk.{i}.nextn.shared_head_norm.weight', E)
    return m


QWEN3_NEXT_80B = dict(
    full_attention_interval=4, head_dim=256, hidden_size=2048, intermediate_size=5120, linear_conv_kernel_dim=4,
    linear_key_head_dim=128, linear_num_key_heads=16, linear_num_value_heads=32, linear_value_head_dim=128,
    max_position_embeddings=262144, moe_intermediate_size=512, num_attention_heads=16, num_experts=512,
    num_experts_per_tok=10, num_hidden_layers=48, num_key_value_heads=2, partial_rotary_factor=0.25,
    rms_norm_eps=1e-6, rope_theta=10000000, shared_expert_intermediate_size=512, vocab_size=151936)


@model
def qwen3_next_80b_a3b():
    return qwen3next('qwen3-next-80b-a3b', 'Qwen/Qwen3-Next-80B-A3B-Instruct', QWEN3_NEXT_80B, 1)


#
# granitehybrid (conversion/granite.py GraniteHybridModel): Mamba-2 blocks and NoPE attention blocks,
# each with MoE experts (the fused input_linear split into gate and up) and a shared expert
#

def mamba2_block(m, i, E, d_inner, n_group, d_state, n_head, d_conv, conv_bias=True):
    d_conv_ch = d_inner + 2 * n_group * d_state
    m.t(f'blk.{i}.ssm_in.weight', E, 2 * d_inner + 2 * n_group * d_state + n_head)
    m.t(f'blk.{i}.ssm_conv1d.weight', d_conv, d_conv_ch, f32=True)
    if conv_bias:
        m.t(f'blk.{i}.ssm_conv1d.bias', d_conv_ch)
    m.t(f'blk.{i}.ssm_dt.bias', n_head)
    m.t(f'blk.{i}.ssm_a', 1, n_head, f32=True).t(f'blk.{i}.ssm_d', 1, n_head, f32=True)
    m.t(f'blk.{i}.ssm_norm.weight', d_inner // n_group, n_group, f32=True)
    m.t(f'blk.{i}.ssm_out.weight', d_inner, E)


@model
def granite_4_0_h_tiny():
    attn = {5, 15, 25, 35}
    c = dict(hidden_size=1536, intermediate_size=512, num_hidden_layers=40, num_attention_heads=12,
             num_key_value_heads=4, max_position_embeddings=131072, rope_theta=10000, rms_norm_eps=1e-5,
             num_local_experts=64, num_experts_per_tok=6, vocab_size=100352, attention_multiplier=0.0078125,
             embedding_multiplier=12.0, residual_multiplier=0.22, logits_scaling=6.0, shared_intermediate_size=1024,
             mamba_d_conv=4, mamba_d_state=128, mamba_n_groups=1, mamba_expand=2, mamba_n_heads=48, mamba_d_head=64)
    m = textmodel(Model('granite-4.0-h-tiny', 'granitehybrid', 'ibm-granite/granite-4.0-h-tiny'), c)
    E, H, KV, V, n, X = (c[k] for k in ('hidden_size', 'num_attention_heads', 'num_key_value_heads', 'vocab_size',
                                        'num_hidden_layers', 'num_local_experts'))
    m.kv('.rope.dimension_count', E // H)  # LlamaModel
    m.kv('.attention.scale', c['attention_multiplier']).kv('.embedding_scale', c['embedding_multiplier'])
    m.kv('.residual_scale', c['residual_multiplier']).kv('.logit_scale', c['logits_scaling'])
    m.kv('.expert_shared_feed_forward_length', c['shared_intermediate_size'])
    d_inner = c['mamba_expand'] * E
    m.kv('.ssm.conv_kernel', c['mamba_d_conv']).kv('.ssm.state_size', c['mamba_d_state'])
    m.kv('.ssm.group_count', c['mamba_n_groups']).kv('.ssm.inner_size', d_inner)
    m.kv('.ssm.time_step_rank', c['mamba_n_heads'])
    m.kv('.attention.head_count_kv', [KV if i in attn else 0 for i in range(n)])
    m.kv('.rope.scaling.finetuned', False)
    m.kv('.context_length', 2 ** 20)
    D = E // H
    tok_out(m, E, V, tied=True)
    for i in range(n):
        m.t(f'blk.{i}.attn_norm.weight', E)
        if i in attn:
            attn_qkv(m, i, E, H * D, KV * D)
        else:
            mamba2_block(m, i, E, d_inner, c['mamba_n_groups'], c['mamba_d_state'], c['mamba_n_heads'], c['mamba_d_conv'])
        m.t(f'blk.{i}.ffn_norm.weight', E)
        experts(m, i, E, c['intermediate_size'], X)
        ffn(m, i, E, c['shared_intermediate_size'], '_shexp')
    return m


#
# nemotron_h (conversion/nemotron.py NemotronHModel on GraniteHybridModel): each block one of Mamba-2
# (M), attention (*) or a squared-ReLU MLP (-), by hybrid_override_pattern
#

@model
def nemotron_nano_9b_v2():
    c = dict(num_hidden_layers=56, hidden_size=4480, intermediate_size=15680, num_attention_heads=40,
             num_key_value_heads=8, head_dim=128, vocab_size=131072, max_position_embeddings=131072,
             hybrid_override_pattern='M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-',
             ssm_state_size=128, conv_kernel=4, n_groups=8, mamba_num_heads=128, mamba_head_dim=80,
             rms_norm_eps=1e-5, layer_norm_epsilon=1e-5)
    pat = c['hybrid_override_pattern']
    m = textmodel(Model('nemotron-nano-9b-v2', 'nemotron_h', 'nvidia/NVIDIA-Nemotron-Nano-9B-v2'), c)
    E, H, KV, D, V, n = (c[k] for k in ('hidden_size', 'num_attention_heads', 'num_key_value_heads', 'head_dim',
                                        'vocab_size', 'num_hidden_layers'))
    m.kv('.attention.layer_norm_epsilon', c['layer_norm_epsilon'])
    m.kv('.rope.dimension_count', E // H)  # LlamaModel
    d_inner = c['mamba_num_heads'] * c['mamba_head_dim']
    m.kv('.ssm.conv_kernel', c['conv_kernel']).kv('.ssm.state_size', c['ssm_state_size'])
    m.kv('.ssm.group_count', c['n_groups']).kv('.ssm.inner_size', d_inner).kv('.ssm.time_step_rank', c['mamba_num_heads'])
    m.kv('.attention.head_count_kv', [KV if pat[i] == '*' else 0 for i in range(n)])
    m.kv('.rope.scaling.finetuned', False)
    m.kv('.context_length', 2 ** 20)
    m.kv('.attention.key_length', D).kv('.attention.value_length', D)
    m.kv('.feed_forward_length', [c['intermediate_size'] if pat[i] == '-' else 0 for i in range(n)])
    tok_out(m, E, V)
    for i in range(n):
        m.t(f'blk.{i}.attn_norm.weight', E)
        if pat[i] == '*':
            attn_qkv(m, i, E, H * D, KV * D)
        elif pat[i] == 'M':
            mamba2_block(m, i, E, d_inner, c['n_groups'], c['ssm_state_size'], c['mamba_num_heads'], c['conv_kernel'])
        else:
            m.t(f'blk.{i}.ffn_down.weight', c['intermediate_size'], E).t(f'blk.{i}.ffn_up.weight', E, c['intermediate_size'])
    return m


#
# llama-like (conversion/llama.py LlamaModel and its subclasses; mistral3.py Ministral3Model)
#

def llamalike(name, arch, source, c, tied=False):
    m = textmodel(Model(name, arch, source), c)
    m.kv('.vocab_size', c['vocab_size'])
    E, H, KV, V = c['hidden_size'], c['num_attention_heads'], c['num_key_value_heads'], c['vocab_size']
    D = c.get('head_dim') or E // H
    m.kv('.rope.dimension_count', D)
    tok_out(m, E, V, tied)
    return m, E, H, KV, D


@model
def mistral_small_3_1_24b():
    c = dict(head_dim=128, hidden_size=5120, intermediate_size=32768, max_position_embeddings=131072,
             num_attention_heads=32, num_hidden_layers=40, num_key_value_heads=8, rms_norm_eps=1e-5,
             rope_theta=1000000000.0, vocab_size=131072)
    m, E, H, KV, D = llamalike('mistral-small-3.1-24b', 'mistral3', 'mistralai/Mistral-Small-3.1-24B-Instruct-2503', c)
    for i in range(c['num_hidden_layers']):
        m.t(f'blk.{i}.attn_norm.weight', E)
        attn_qkv(m, i, E, H * D, KV * D)
        m.t(f'blk.{i}.ffn_norm.weight', E)
        ffn(m, i, E, c['intermediate_size'])
    return m


@model
def smollm3_3b():
    c = dict(hidden_size=2048, intermediate_size=11008, num_hidden_layers=36, num_attention_heads=16,
             num_key_value_heads=4, max_position_embeddings=65536, rope_theta=5000000.0, rms_norm_eps=1e-6,
             vocab_size=128256)
    m, E, H, KV, D = llamalike('smollm3-3b', 'smollm3', 'HuggingFaceTB/SmolLM3-3B', c, tied=True)
    for i in range(c['num_hidden_layers']):
        m.t(f'blk.{i}.attn_norm.weight', E)
        attn_qkv(m, i, E, H * D, KV * D)
        m.t(f'blk.{i}.ffn_norm.weight', E)
        ffn(m, i, E, c['intermediate_size'])
    return m


@model
def llama_4_scout_17b_16e():
    c = dict(hidden_size=5120, intermediate_size=16384, intermediate_size_moe=8192, num_hidden_layers=48,
             num_attention_heads=40, num_key_value_heads=8, head_dim=128, num_local_experts=16,
             num_experts_per_tok=1, interleave_moe_layer_step=1, vocab_size=202048, max_position_embeddings=10485760,
             rope_theta=500000.0, rms_norm_eps=1e-5)
    m, E, H, KV, D = llamalike('llama-4-scout-17b-16e', 'llama4', 'meta-llama/Llama-4-Scout-17B-16E-Instruct', c)
    m.kv('.interleave_moe_layer_step', c['interleave_moe_layer_step'])
    m.kv('.expert_feed_forward_length', c['intermediate_size_moe'])
    m.t('rope_freqs.weight', D // 2)  # the llama3 RoPE factors (LlamaModel.generate_extra_tensors)
    for i in range(c['num_hidden_layers']):
        m.t(f'blk.{i}.attn_norm.weight', E)
        attn_qkv(m, i, E, H * D, KV * D)
        m.t(f'blk.{i}.ffn_norm.weight', E)
        if (i + 1) % c['interleave_moe_layer_step'] == 0:
            experts(m, i, E, c['intermediate_size_moe'], c['num_local_experts'])
            ffn(m, i, E, c['intermediate_size_moe'], '_shexp')
        else:
            ffn(m, i, E, c['intermediate_size'])
    return m


#
# command-r (conversion/command_r.py CommandR2Model), exaone4 (exaone.py Exaone4Model)
#

@model
def command_r_v01():
    c = dict(hidden_size=8192, intermediate_size=22528, num_hidden_layers=40, num_attention_heads=64,
             num_key_value_heads=64, layer_norm_eps=1e-5, logit_scale=0.0625, max_position_embeddings=131072,
             rope_theta=8000000.0, vocab_size=256000)  # max_position_embeddings: model_max_length, as the converter
    m = textmodel(Model('command-r-v01', 'command-r', 'CohereLabs/c4ai-command-r-v01'), c)
    m.kv('.logit_scale', c['logit_scale']).kv('.rope.scaling.type', 'none')
    E, H, KV, V = c['hidden_size'], c['num_attention_heads'], c['num_key_value_heads'], c['vocab_size']
    D = E // H
    tok_out(m, E, V, tied=True)
    for i in range(c['num_hidden_layers']):
        m.t(f'blk.{i}.attn_norm.weight', E)
        attn_qkv(m, i, E, H * D, KV * D)
        ffn(m, i, E, c['intermediate_size'])
    return m


@model
def exaone_4_0_32b():
    c = dict(hidden_size=5120, intermediate_size=27392, num_hidden_layers=64, num_attention_heads=40,
             num_key_value_heads=8, head_dim=128, max_position_embeddings=131072, rms_norm_eps=1e-5,
             rope_theta=1000000.0, sliding_window=4096, sliding_window_pattern='LLLG', vocab_size=102400)
    m = textmodel(Model('exaone-4.0-32b', 'exaone4', 'LGAI-EXAONE/EXAONE-4.0-32B'), c)
    n = c['num_hidden_layers']
    m.kv('.vocab_size', c['vocab_size']).kv('.attention.sliding_window', c['sliding_window'])
    m.kv('.attention.sliding_window_pattern', [c['sliding_window_pattern'][i % 4] == 'L' for i in range(n)])
    E, H, KV, D, V = c['hidden_size'], c['num_attention_heads'], c['num_key_value_heads'], c['head_dim'], c['vocab_size']
    tok_out(m, E, V)
    m.t('rope_freqs.weight', D // 2)  # llama3 RoPE factors (Exaone4Model.generate_extra_tensors)
    for i in range(n):
        attn_qkv(m, i, E, H * D, KV * D)
        m.t(f'blk.{i}.attn_q_norm.weight', D).t(f'blk.{i}.attn_k_norm.weight', D)
        m.t(f'blk.{i}.post_attention_norm.weight', E)
        ffn(m, i, E, c['intermediate_size'])
        m.t(f'blk.{i}.post_ffw_norm.weight', E)
    return m


#
# mamba2 (conversion/mamba.py Mamba2Model)
#

@model
def mamba_codestral_7b():
    c = dict(hidden_size=4096, num_hidden_layers=64, n_groups=8, state_size=128, expand=2, head_dim=64,
             num_heads=128, conv_kernel=4, vocab_size=32768, layer_norm_epsilon=1e-5)
    m = Model('mamba-codestral-7b', 'mamba2', 'mistralai/Mamba-Codestral-7B-v0.1')
    E, n, V = c['hidden_size'], c['num_hidden_layers'], -(c['vocab_size'] // -16) * 16
    d_inner = c['expand'] * E
    m.kv('.context_length', 2 ** 20).kv('.embedding_length', E).kv('.feed_forward_length', 0)
    m.kv('.attention.head_count', 0).kv('.block_count', n)
    m.kv('.ssm.conv_kernel', c['conv_kernel']).kv('.ssm.inner_size', d_inner).kv('.ssm.state_size', c['state_size'])
    m.kv('.ssm.time_step_rank', d_inner // c['head_dim']).kv('.ssm.group_count', c['n_groups'])
    m.kv('.attention.layer_norm_rms_epsilon', c['layer_norm_epsilon'])
    m.finish(V)
    tok_out(m, E, V)
    for i in range(n):
        m.t(f'blk.{i}.attn_norm.weight', E)
        mamba2_block(m, i, E, d_inner, c['n_groups'], c['state_size'], c['num_heads'], c['conv_kernel'])
    return m


#
# glm4 (conversion/glm.py Glm4Model), seed_oss (olmo.py SeedOssModel), granite (granite.py GraniteModel)
#

@model
def glm_4_9b_0414():
    c = dict(hidden_size=4096, intermediate_size=13696, num_hidden_layers=40, num_attention_heads=32,
             num_key_value_heads=2, head_dim=128, partial_rotary_factor=0.5, vocab_size=151552,
             max_position_embeddings=32768, rope_theta=10000.0, rms_norm_eps=1e-5)
    m = textmodel(Model('glm-4-9b-0414', 'glm4', 'zai-org/GLM-4-9B-0414'), c)
    E, H, KV, D, F, V = (c[k] for k in ('hidden_size', 'num_attention_heads', 'num_key_value_heads', 'head_dim',
                                        'intermediate_size', 'vocab_size'))
    m.kv('.rope.dimension_count', int(D * c['partial_rotary_factor']))
    tok_out(m, E, V)
    for i in range(c['num_hidden_layers']):
        m.t(f'blk.{i}.attn_norm.weight', E)
        attn_qkv(m, i, E, H * D, KV * D, bias=True)
        m.t(f'blk.{i}.post_attention_norm.weight', E)
        m.t(f'blk.{i}.ffn_norm.weight', E)
        m.t(f'blk.{i}.ffn_up.weight', E, 2 * F).t(f'blk.{i}.ffn_down.weight', F, E)
        m.t(f'blk.{i}.post_ffw_norm.weight', E)
    return m


@model
def seed_oss_36b():
    c = dict(head_dim=128, hidden_size=5120, intermediate_size=27648, max_position_embeddings=524288,
             num_attention_heads=80, num_hidden_layers=64, num_key_value_heads=8, rms_norm_eps=1e-6,
             rope_theta=10000000.0, vocab_size=155136)
    m = textmodel(Model('seed-oss-36b', 'seed_oss', 'ByteDance-Seed/Seed-OSS-36B-Instruct'), c)
    E, H, KV, D, F, V = (c[k] for k in ('hidden_size', 'num_attention_heads', 'num_key_value_heads', 'head_dim',
                                        'intermediate_size', 'vocab_size'))
    tok_out(m, E, V)
    for i in range(c['num_hidden_layers']):
        m.t(f'blk.{i}.attn_norm.weight', E)
        attn_qkv(m, i, E, H * D, KV * D, bias=True)
        m.t(f'blk.{i}.post_attention_norm.weight', E)
        ffn(m, i, E, F)
    return m


@model
def granite_3_3_8b():
    c = dict(hidden_size=4096, intermediate_size=12800, num_hidden_layers=40, num_attention_heads=32,
             num_key_value_heads=8, max_position_embeddings=131072, rope_theta=10000000.0, rms_norm_eps=1e-5,
             vocab_size=49159, attention_multiplier=0.0078125, embedding_multiplier=12.0, residual_multiplier=0.22,
             logits_scaling=16.0)
    m, E, H, KV, D = llamalike('granite-3.3-8b', 'granite', 'ibm-granite/granite-3.3-8b-instruct', c, tied=True)
    m.kv('.attention.scale', c['attention_multiplier']).kv('.embedding_scale', c['embedding_multiplier'])
    m.kv('.residual_scale', c['residual_multiplier']).kv('.logit_scale', c['logits_scaling'])
    for i in range(c['num_hidden_layers']):
        m.t(f'blk.{i}.attn_norm.weight', E)
        attn_qkv(m, i, E, H * D, KV * D)
        m.t(f'blk.{i}.ffn_norm.weight', E)
        ffn(m, i, E, c['intermediate_size'])
    return m


#
# qwen2moe (conversion/qwen.py Qwen2MoeModel), deepseek (deepseek.py DeepseekModel)
#

@model
def qwen1_5_moe_a2_7b():
    c = dict(hidden_size=2048, intermediate_size=5632, num_hidden_layers=24, num_attention_heads=16,
             num_key_value_heads=16, num_experts=60, num_experts_per_tok=4, moe_intermediate_size=1408,
             shared_expert_intermediate_size=5632, vocab_size=151936, max_position_embeddings=8192,
             rope_theta=1000000.0, rms_norm_eps=1e-6)
    m = textmodel(Model('qwen1.5-moe-a2.7b', 'qwen2moe', 'Qwen/Qwen1.5-MoE-A2.7B'), c)
    m.kv('.expert_feed_forward_length', c['moe_intermediate_size'])
    m.kv('.expert_shared_feed_forward_length', c['shared_expert_intermediate_size'])
    E, V = c['hidden_size'], c['vocab_size']
    tok_out(m, E, V)
    for i in range(c['num_hidden_layers']):
        m.t(f'blk.{i}.attn_norm.weight', E)
        attn_qkv(m, i, E, E, E, bias=True)
        m.t(f'blk.{i}.ffn_norm.weight', E)
        experts(m, i, E, c['moe_intermediate_size'], c['num_experts'])
        ffn(m, i, E, c['shared_expert_intermediate_size'], '_shexp')
        m.t(f'blk.{i}.ffn_gate_inp_shexp.weight', E)
    return m


@model
def deepseek_moe_16b():
    c = dict(hidden_size=2048, num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=16,
             intermediate_size=10944, moe_intermediate_size=1408, n_routed_experts=64, num_experts_per_tok=6,
             n_shared_experts=2, first_k_dense_replace=1, vocab_size=102400, max_position_embeddings=4096,
             rope_theta=10000.0, rms_norm_eps=1e-6)
    m = textmodel(Model('deepseek-moe-16b', 'deepseek', 'deepseek-ai/deepseek-moe-16b-base'), c)
    E, H, V = c['hidden_size'], c['num_attention_heads'], c['vocab_size']
    m.kv('.rope.dimension_count', E // H).kv('.rope.scaling.type', 'none')
    m.kv('.leading_dense_block_count', c['first_k_dense_replace']).kv('.vocab_size', V)
    m.kv('.expert_feed_forward_length', c['moe_intermediate_size']).kv('.expert_weights_scale', 1.0)
    m.kv('.expert_count', c['n_routed_experts']).kv('.expert_shared_count', c['n_shared_experts'])
    tok_out(m, E, V)
    for i in range(c['num_hidden_layers']):
        m.t(f'blk.{i}.attn_norm.weight', E)
        attn_qkv(m, i, E, E, E)
        m.t(f'blk.{i}.ffn_norm.weight', E)
        if i < c['first_k_dense_replace']:
            ffn(m, i, E, c['intermediate_size'])
        else:
            experts(m, i, E, c['moe_intermediate_size'], c['n_routed_experts'])
            ffn(m, i, E, c['moe_intermediate_size'] * c['n_shared_experts'], '_shexp')
    return m


#
# gpt-oss (conversion/gpt_oss.py), gemma3 (gemma.py Gemma3Model): the larger siblings of
# ../models-real's gpt-oss-20b and gemma3-4b, with the same keys
#

@model
def gpt_oss_120b():
    c = dict(hidden_size=2880, num_hidden_layers=36, num_attention_heads=64, num_key_value_heads=8, head_dim=64,
             num_local_experts=128, num_experts_per_tok=4, intermediate_size=2880, vocab_size=201088,
             max_position_embeddings=131072, rope_theta=150000.0, rms_norm_eps=1e-5, sliding_window=128)
    m = textmodel(Model('gpt-oss-120b', 'gpt-oss', 'openai/gpt-oss-120b'), c)
    m.kv('.expert_feed_forward_length', c['intermediate_size']).kv('.attention.sliding_window', c['sliding_window'])
    rope_yarn(m, 32.0, 4096)
    E, H, KV, D, X, F = (c[k] for k in ('hidden_size', 'num_attention_heads', 'num_key_value_heads', 'head_dim',
                                        'num_local_experts', 'intermediate_size'))
    tok_out(m, E, c['vocab_size'])
    for i in range(c['num_hidden_layers']):
        m.t(f'blk.{i}.attn_norm.weight', E)
        attn_qkv(m, i, E, H * D, KV * D, bias=True, o_bias=True)
        m.t(f'blk.{i}.attn_sinks.weight', H)
        m.t(f'blk.{i}.post_attention_norm.weight', E)
        m.t(f'blk.{i}.ffn_gate_inp.weight', E, X, f32=True).t(f'blk.{i}.ffn_gate_inp.bias', X)
        for p in ('gate', 'up', 'down'):
            m.t(f'blk.{i}.ffn_{p}_exps.weight', F, E, X) if p == 'down' else m.t(f'blk.{i}.ffn_{p}_exps.weight', E, F, X)
            m.t(f'blk.{i}.ffn_{p}_exps.bias', E if p == 'down' else F, X, f32=True)
    return m


@model
def gemma_3_27b():
    c = dict(hidden_size=5376, num_hidden_layers=62, num_attention_heads=32, num_key_value_heads=16, head_dim=128,
             intermediate_size=21504, vocab_size=262208, max_position_embeddings=131072, rope_theta=1000000.0,
             rms_norm_eps=1e-6, sliding_window=1024)
    m = textmodel(Model('gemma-3-27b', 'gemma3', 'google/gemma-3-27b-it'), c)
    m.kv('.attention.sliding_window', c['sliding_window'])
    m.kv('.rope.scaling.type', 'linear').kv('.rope.scaling.factor', 8.0)
    E, H, KV, D, F = (c[k] for k in ('hidden_size', 'num_attention_heads', 'num_key_value_heads', 'head_dim',
                                     'intermediate_size'))
    tok_out(m, E, c['vocab_size'], tied=True)
    for i in range(c['num_hidden_layers']):
        m.t(f'blk.{i}.attn_norm.weight', E)
        attn_qkv(m, i, E, H * D, KV * D)
        m.t(f'blk.{i}.attn_q_norm.weight', D).t(f'blk.{i}.attn_k_norm.weight', D)
        m.t(f'blk.{i}.post_attention_norm.weight', E).t(f'blk.{i}.ffn_norm.weight', E)
        ffn(m, i, E, F)
        m.t(f'blk.{i}.post_ffw_norm.weight', E)
    return m


@model
def gemma_7b():
    c = dict(hidden_size=3072, num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=16, head_dim=256,
             intermediate_size=24576, vocab_size=256000, max_position_embeddings=8192, rms_norm_eps=1e-6)
    m = Model('gemma-7b', 'gemma', 'google/gemma-7b')
    E, H, KV, D, F, V = (c[k] for k in ('hidden_size', 'num_attention_heads', 'num_key_value_heads', 'head_dim',
                                        'intermediate_size', 'vocab_size'))
    m.kv('.context_length', c['max_position_embeddings']).kv('.embedding_length', E)
    m.kv('.block_count', c['num_hidden_layers']).kv('.feed_forward_length', F)
    m.kv('.attention.head_count', H).kv('.attention.head_count_kv', KV)
    m.kv('.attention.layer_norm_rms_epsilon', c['rms_norm_eps'])
    m.kv('.attention.key_length', D).kv('.attention.value_length', D)
    m.finish(V)
    tok_out(m, E, V, tied=True)
    for i in range(c['num_hidden_layers']):
        m.t(f'blk.{i}.attn_norm.weight', E)
        attn_qkv(m, i, E, H * D, KV * D)
        m.t(f'blk.{i}.ffn_norm.weight', E)
        ffn(m, i, E, F)
    return m


#
# qwen3vl (conversion/qwen3vl.py Qwen3VLTextModel on Qwen3Model): the text model, M-RoPE sections and
# the deepstack layer count
#

@model
def qwen3_vl_8b():
    c = dict(hidden_size=4096, intermediate_size=12288, num_hidden_layers=36, num_attention_heads=32,
             num_key_value_heads=8, head_dim=128, max_position_embeddings=262144, rms_norm_eps=1e-6,
             rope_theta=5000000.0, vocab_size=151936)
    m = textmodel(Model('qwen3-vl-8b', 'qwen3vl', 'Qwen/Qwen3-VL-8B-Instruct'), c)
    m.kv('.rope.dimension_sections', [24, 20, 20, 0])
    m.kv('.n_deepstack_layers', 3)
    E, H, KV, D, F, V = (c[k] for k in ('hidden_size', 'num_attention_heads', 'num_key_value_heads', 'head_dim',
                                        'intermediate_size', 'vocab_size'))
    tok_out(m, E, V)
    for i in range(c['num_hidden_layers']):
        m.t(f'blk.{i}.attn_norm.weight', E)
        attn_qkv(m, i, E, H * D, KV * D)
        m.t(f'blk.{i}.attn_q_norm.weight', D).t(f'blk.{i}.attn_k_norm.weight', D)
        m.t(f'blk.{i}.ffn_norm.weight', E)
        ffn(m, i, E, F)
    return m


@model
def qwen3_vl_30b_a3b():
    c = dict(hidden_size=2048, intermediate_size=6144, num_hidden_layers=48, num_attention_heads=32,
             num_key_value_heads=4, head_dim=128, num_experts=128, num_experts_per_tok=8, moe_intermediate_size=768,
             max_position_embeddings=262144, rms_norm_eps=1e-6, rope_theta=5000000.0, vocab_size=151936)
    m = textmodel(Model('qwen3-vl-30b-a3b', 'qwen3vlmoe', 'Qwen/Qwen3-VL-30B-A3B-Instruct'), c)
    m.kv('.expert_feed_forward_length', c['moe_intermediate_size'])
    m.kv('.rope.dimension_sections', [24, 20, 20, 0])
    m.kv('.n_deepstack_layers', 3)
    E, H, KV, D, V = (c[k] for k in ('hidden_size', 'num_attention_heads', 'num_key_value_heads', 'head_dim', 'vocab_size'))
    tok_out(m, E, V)
    for i in range(c['num_hidden_layers']):
        m.t(f'blk.{i}.attn_norm.weight', E)
        attn_qkv(m, i, E, H * D, KV * D)
        m.t(f'blk.{i}.attn_q_norm.weight', D).t(f'blk.{i}.attn_k_norm.weight', D)
        m.t(f'blk.{i}.ffn_norm.weight', E)
        experts(m, i, E, c['moe_intermediate_size'], c['num_experts'])
    return m


#
# minimax-m2 (conversion/minimax.py MiniMaxM2Model): sigmoid experts with a selection bias, Q/K
# RMS norms over all heads, RoPE on 64 of each head's 128 values
#

@model
def minimax_m2():
    c = dict(hidden_size=3072, intermediate_size=1536, num_hidden_layers=62, num_attention_heads=48,
             num_key_value_heads=8, head_dim=128, rotary_dim=64, num_local_experts=256, num_experts_per_tok=8,
             max_position_embeddings=196608, rope_theta=5000000.0, rms_norm_eps=1e-6, vocab_size=200064)
    m = textmodel(Model('minimax-m2', 'minimax-m2', 'MiniMaxAI/MiniMax-M2'), c)
    m.kv('.expert_gating_func', 2)  # scoring_func sigmoid
    m.kv('.expert_feed_forward_length', c['intermediate_size']).kv('.rope.dimension_count', c['rotary_dim'])
    E, H, KV, D, V, X = (c[k] for k in ('hidden_size', 'num_attention_heads', 'num_key_value_heads', 'head_dim',
                                        'vocab_size', 'num_local_experts'))
    tok_out(m, E, V)
    for i in range(c['num_hidden_layers']):
        m.t(f'blk.{i}.attn_norm.weight', E)
        attn_qkv(m, i, E, H * D, KV * D)
        m.t(f'blk.{i}.attn_q_norm.weight', H * D).t(f'blk.{i}.attn_k_norm.weight', KV * D)
        m.t(f'blk.{i}.ffn_norm.weight', E)
        experts(m, i, E, c['intermediate_size'], X)
        m.t(f'blk.{i}.exp_probs_b.bias', X)
    return m


#
# ernie4_5-moe (conversion/ernie.py Ernie4_5MoeModel): a dense first block, 64 experts with a
# selection bias, 2 shared experts; the MTP block skipped by the converter
#

@model
def ernie_4_5_21b_a3b():
    c = dict(hidden_size=2560, intermediate_size=12288, num_hidden_layers=28, num_attention_heads=20,
             num_key_value_heads=4, head_dim=128, max_position_embeddings=131072, rope_theta=500000.0,
             rms_norm_eps=1e-5, vocab_size=103424, moe_num_experts=64, moe_k=6, moe_layer_interval=1,
             moe_layer_start_index=1, moe_intermediate_size=1536, moe_num_shared_experts=2)
    m = textmodel(Model('ernie-4.5-21b-a3b', 'ernie4_5-moe', 'baidu/ERNIE-4.5-21B-A3B-PT'), c)
    m.kv('.expert_count', c['moe_num_experts']).kv('.expert_used_count', c['moe_k'])
    m.kv('.interleave_moe_layer_step', c['moe_layer_interval']).kv('.leading_dense_block_count', c['moe_layer_start_index'])
    m.kv('.expert_feed_forward_length', c['moe_intermediate_size']).kv('.expert_shared_count', c['moe_num_shared_experts'])
    m.kv('.expert_shared_feed_forward_length', c['intermediate_size'] // c['num_key_value_heads'])
    E, H, KV, D, V, X = (c[k] for k in ('hidden_size', 'num_attention_heads', 'num_key_value_heads', 'head_dim',
                                        'vocab_size', 'moe_num_experts'))
    tok_out(m, E, V, tied=True)
    for i in range(c['num_hidden_layers']):
        m.t(f'blk.{i}.attn_norm.weight', E)
        attn_qkv(m, i, E, H * D, KV * D)
        m.t(f'blk.{i}.ffn_norm.weight', E)
        if i < c['moe_layer_start_index']:
            ffn(m, i, E, c['intermediate_size'])
        else:
            experts(m, i, E, c['moe_intermediate_size'], X)
            m.t(f'blk.{i}.exp_probs_b.bias', X)
            ffn(m, i, E, c['moe_intermediate_size'] * c['moe_num_shared_experts'], '_shexp')
    return m


def main(names):
    out = os.environ.get('GGUF_OUT', os.path.join(HERE, 'gguf'))  # elsewhere: no manifest written
    os.makedirs(out, exist_ok=True)
    rows = []
    for name in MODELS:
        m = MODELS[name]()
        rows.append(f'{m.name}\t{m.arch}\t{m.source}\tgguf/{m.name}.meta.gguf\n')
        if not names or m.name in names:
            G.write(os.path.join(out, m.name + '.meta.gguf'), m.kvs, m.tensors)
    if 'GGUF_OUT' in os.environ:
        return
    with open(os.path.join(HERE, 'manifest.tsv'), 'w') as f:
        f.write('model\tarch\tsource\tgguf\n' + ''.join(rows))


if __name__ == '__main__':
    main(sys.argv[1:])
