// cli-explain.h: `galloc explain`: why a compute buffer is this big, as a table for a bug report.

#pragma once

// galloc explain GRAPH.json [B.json] [--top N] [--no-fold]; returns the exit status
int cli_explain_command(int argc, char ** argv, const char * usage);
