# Runtime image for in-cluster use. Build the binary first with `make release`: it holds the
# site (WASM, JS, CSS) and the demo scenario, so it is the only file the image needs
# (this machine has no Docker engine; build the image where one runs).
FROM gcr.io/distroless/cc-debian12:nonroot
WORKDIR /app
COPY target/release/daemonscope /app/daemonscope
USER 65532
ENTRYPOINT ["/app/daemonscope"]
