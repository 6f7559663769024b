// Run by `npm ci` (the root package's `prepare`), with node_modules/.bin first on PATH as in every
// npm script: the `node` found there is the one the scripts will use. CommonJS and no syntax newer
// than Node 10, so that an old Node reads it and prints the one line instead of a syntax error.
'use strict';
var major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(
    'version-policy: the npm scripts need Node.js 22, but run on ' +
      process.version +
      ' (' +
      process.platform +
      '-' +
      process.arch +
      '): ' +
      'npm ci installs Node 22 only on linux-x64; install Node 22 (for example `nvm install 22`) and run npm ci again\n',
  );
  process.exit(1);
}
