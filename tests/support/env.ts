// Every test file: quiet service logs unless a test captures them itself.
process.env.LOG_LEVEL ??= 'error';
