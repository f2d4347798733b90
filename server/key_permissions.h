#pragma once
// Whether the server's private key file is exposed to other users of its host. Whoever reads the key
// can mint tokens for every server that uses it, so a key readable by group or others is worth a
// warning (and, with --strict-key-permissions, a refusal to start). Secrets mounts are the exception:
// orchestrators create them for the process that reads them, often with mode 0444 (Docker's
// /run/secrets, Kubernetes' secret volumes).

#include <string>

namespace foothold::server {

/// Why the key file at `path` is exposed ("mode 0644: readable by group and others"), or "" when it
/// is readable by its owner only, or sits in a secrets mount: under /run/secrets/ or
/// /var/run/secrets/, or on a read-only tmpfs (how Kubernetes mounts secret volumes). A file that
/// cannot be examined is reported as such (the key was read just before, so this is rare).
std::string key_file_exposure(const std::string& path);

}  // namespace foothold::server
