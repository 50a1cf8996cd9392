# Runtime image for a machine with a Docker engine. `make image` builds the tested image without
# one (crane; README, "Deploy in a cluster"). Build the binary first with `make release`: it
# holds the site (WASM, JS, CSS) and the demo scenario, so it is the only file the image needs.
FROM gcr.io/distroless/cc-debian12:nonroot
WORKDIR /app
COPY target/release/daemonscope /app/daemonscope
USER 65532
ENTRYPOINT ["/app/daemonscope"]
