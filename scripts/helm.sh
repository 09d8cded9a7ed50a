#!/usr/bin/env bash
# Prints the path of a checked helm v3 (see scripts/layer-tool.sh; VEIL_HELM overrides).
exec "$(dirname "${BASH_SOURCE[0]}")/layer-tool.sh" helm
