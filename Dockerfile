# Runtime image for a machine with a Docker engine. `make image` builds the tested image without
# one (crane; README, "Deploy in a cluster"). Build the artefacts first with `make release`.
FROM gcr.io/distroless/cc-debian12:nonroot
WORKDIR /app
COPY target/release/daemonscope /app/daemonscope
COPY target/site /app/target/site
USER 65532
ENTRYPOINT ["/app/daemonscope"]
