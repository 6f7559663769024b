// Loaded first in every test process through NODE_OPTIONS (scripts/tap-recap.mjs), ahead of tap's
// own `--import`s. tap starts @tapjs/processinfo's loader in each test process whatever the
// options, and with coverage off it records every module loaded only for `tap --changed`: reading
// each file again and copying its source to the main thread tripled client-node's load (11 s of
// CPU against 4.4 s). There is no option to turn it off; its exclude pattern, set before the
// loader starts, makes it record nothing (bench/NOTES.md §7). With coverage on it stays as it is.
if (process.env._TAPJS_PROCESSINFO_COVERAGE_ === '0') process.env._TAPJS_PROCESSINFO_EXCLUDE_ = '/./';
