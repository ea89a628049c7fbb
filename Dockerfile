# Build a static binary (the SQLite driver is pure Go: no cgo).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
# The module go.mod replaces go-htmldate with (see third_party/htmldate-stub).
COPY third_party ./third_party
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/feedpoller ./cmd/feedpoller && \
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/feedpoller-healthcheck ./cmd/feedpoller-healthcheck && \
    mkdir -p /out/data

# A small runtime image with CA certificates and a non-root user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/feedpoller /usr/local/bin/feedpoller
# The image has no shell or curl: a small probe asks /readyz.
COPY --from=build /out/feedpoller-healthcheck /usr/local/bin/feedpoller-healthcheck
# The data directory belongs to the non-root user, so a fresh named volume
# mounted there (which copies this ownership) is writable.
COPY --from=build --chown=65532:65532 /out/data /data
WORKDIR /data
VOLUME ["/data"]
ENV FEEDPOLLER_LISTEN=0.0.0.0:8080 \
    FEEDPOLLER_DATABASE_URL=/data/feedpoller.db \
    FEEDPOLLER_LOG_FORMAT=json
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=10s --start-period=30s --retries=3 CMD ["/usr/local/bin/feedpoller-healthcheck"]
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/feedpoller"]
CMD ["serve"]
