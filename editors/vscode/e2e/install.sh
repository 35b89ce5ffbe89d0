#!/usr/bin/env sh
# Installs the end-to-end test's dependencies (package-lock.json) and
# finishes code-server's install by hand. code-server's own postinstall
# (postinstall.sh) installs VS Code's modules, whose @vscode/ripgrep
# downloads a prebuilt rg from a host this machine and CI cannot reach; so
# its steps are taken here with Debian's ripgrep (/usr/bin/rg) in place of
# the download, and node-gyp building the native modules against the
# headers of the running Node (no header download either).
# Needs: Node 20, a C/C++ compiler, python3, libkrb5-dev, ripgrep.
set -eu
cd "$(dirname "$0")"

rg=$(command -v rg) || { echo "install.sh: ripgrep is not installed (apt-get install -y ripgrep)" >&2; exit 1; }
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" = 20 ] || { echo "install.sh: code-server 4.100.3 runs on Node 20, this is Node $(node --version)" >&2; exit 1; }

# Some native modules build with `npx node-gyp`, which must not ask.
export npm_config_yes=true
npm_config_nodedir=$(node -p 'require("path").dirname(require("path").dirname(process.execPath))')
export npm_config_nodedir
npm ci --ignore-scripts --no-audit --no-fund
npm rebuild argon2 # code-server loads it at start (its install builds it)

cs=node_modules/code-server
(
	cd "$cs/lib/vscode"
	# Its npm-shrinkwrap.json is not in sync with its package.json (npm ci
	# refuses it): npm install, as postinstall.sh does.
	npm install --omit=dev --ignore-scripts --no-audit --no-fund
	# @vscode/ripgrep's postinstall does nothing when bin/ exists.
	mkdir -p node_modules/@vscode/ripgrep/bin
	ln -sf "$rg" node_modules/@vscode/ripgrep/bin/rg
	npm rebuild
	# What code-server's postinstall.sh does after its install.
	rm -rf node_modules.asar && ln -s node_modules node_modules.asar
	(cd bin/remote-cli && rm -f code-server && ln -s code-linux.sh code-server)
	(cd bin/helpers && rm -f browser.sh && ln -s browser-linux.sh browser.sh)
	cd extensions
	npm install --omit=dev --no-audit --no-fund
)
echo "install.sh: code-server $(node -p "require('./$cs/package.json').version") installed"
