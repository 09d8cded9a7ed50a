#!/usr/bin/env bash
# Prints the path of a checked kubectl v1.33 (see scripts/layer-tool.sh; VEIL_KUBECTL overrides).
exec "$(dirname "${BASH_SOURCE[0]}")/layer-tool.sh" kubectl
