// galloc-device-vulkan.c: ggml-vulkan's supports_op and graph_optimize, for the Vulkan profiles.
//
// First version: every op supported, no reordering (to be replaced by ggml-vulkan's rules).

#include "galloc-device-impl.h"
#include "ggml-impl.h"

bool galloc_device_vulkan_supports_op(const struct galloc_dev * dev, const struct ggml_tensor * op) {
    GGML_UNUSED(dev);
    GGML_UNUSED(op);
    return true;
}

void galloc_device_vulkan_graph_optimize(struct ggml_cgraph * cgraph) {
    GGML_UNUSED(cgraph);
}
