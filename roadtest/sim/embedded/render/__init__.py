"""Camera rendering for the built-in simulator (moderngl on headless EGL); imported only when a camera is asked for."""
