// The CLI's exit codes: 0 all allowed, 1 something denied, 2 usage or input error.
export const EXIT_OK = 0;
export const EXIT_DENIED = 1;
export const EXIT_INPUT = 2;
