// cli-model.h: `galloc model`: llama.cpp's compute graph and buffer sizes for a GGUF file or a card.

#pragma once

// galloc model MODEL.gguf | --card NAME | --cards, with llama.cpp's context flags; returns the exit status
int cli_model_command(int argc, char ** argv);
