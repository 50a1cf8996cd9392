# Runtime image for in-cluster use. Build the artefacts first with `make release`
# (this machine has no Docker engine; build the image where one runs).
FROM gcr.io/distroless/cc-debian12:nonroot
WORKDIR /app
COPY target/release/daemonscope /app/daemonscope
COPY target/site /app/target/site
USER 65532
ENTRYPOINT ["/app/daemonscope"]
