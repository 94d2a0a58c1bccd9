#!/usr/bin/env bash
# Step 1 of the GitHub Action: which runspec-eval the later steps run (exported as RUNSPEC_EVAL).
# The project's own, when runspec-eval is in its devDependencies and installed; otherwise the action's
# checkout, built once (npm ci && npm run build in the action's path).
set -euo pipefail
if [ -f package.json ] && node -e 'const p=require("./package.json"); process.exit({...p.dependencies,...p.devDependencies}["runspec-eval"] ? 0 : 1)' \
  && [ -x node_modules/.bin/runspec-eval ]; then
  echo "RUNSPEC_EVAL=$PWD/node_modules/.bin/runspec-eval" >> "$GITHUB_ENV"
  echo "runspec-eval: the project's own ($(node_modules/.bin/runspec-eval --version))"
  exit 0
fi
cd "$GITHUB_ACTION_PATH"
# npm ci builds too (the package's prepare script).
npm ci --no-audit --no-fund
chmod +x dist/cli/main.js
echo "RUNSPEC_EVAL=$GITHUB_ACTION_PATH/dist/cli/main.js" >> "$GITHUB_ENV"
echo "runspec-eval: built from the action ($(node dist/cli/main.js --version))"
