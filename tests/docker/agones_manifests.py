#!/usr/bin/python3
"""Validates the Agones manifests of docker/agones/ (quick suite).

  agones_manifests.py INSTALL_YAML MANIFEST_DIR

1. Schema: every document of every *.yaml in MANIFEST_DIR whose apiVersion and kind name a
   CustomResourceDefinition of INSTALL_YAML (the Agones release's install manifest) is validated,
   whole, against the openAPIV3Schema of the CRD version it names, which must be served. The
   OpenAPI v3 schema is turned into JSON Schema (draft 4) as the API server reads it: `nullable`
   admits null, `x-kubernetes-int-or-string` an integer or a string, `x-kubernetes-list-type: map`
   keys must be unique and `set` items too, `format: int32`/`int64` bound integers, and a field the
   schema does not declare is an error (kubectl's default strict field validation), as is a key
   given twice in one mapping. The root's apiVersion, kind and metadata (ObjectMeta) are checked
   as the API server does. A v1 Secret or ConfigMap needs only apiVersion, kind and metadata.name;
   a networking.k8s.io/v1 NetworkPolicy must select the game servers, admit UDP 7777 from anywhere
   and TCP 9100 (metrics and probes) only from named namespaces and addresses (issue #63); any
   other kind is an error.
2. Foothold's contract, in every GameServer spec (a GameServer's, a Fleet's or a GameServerSet's
   template): a UDP port with portPolicy Dynamic and containerPort 7777 (FOOTHOLD_PORT, if set,
   the same); the Secret volume mounted read-only at /run/secrets, its key file readable by uid
   10001 (the image's user); liveness on /healthz and readiness on /readyz at the metrics port 9100
   (FOOTHOLD_METRICS_ADDRESS's port); a `players` Counter whose capacity is FOOTHOLD_MAX_CLIENTS;
   an Agones health period that holds two of the server's health pings; a termination grace period
   above the drain time. Across files: a Fleet's template equals the GameServer's spec, a
   FleetAutoscaler names a Fleet of the directory, the Secret the volume names is there with the key.

Prints one line per document that passes; each problem names the file, the document and the JSON
path. Exit codes: 0 all valid; 1 a problem; 2 bad usage; 77 INSTALL_YAML is absent (skip).
Needs python3-yaml and python3-jsonschema (Debian 12).
"""

import difflib
import json
import os
import re
import sys

try:
    import jsonschema
    import yaml
except ImportError as missing:  # a test must not pass or skip for want of a package
    print(f"agones_manifests: {missing}: install python3-yaml and python3-jsonschema "
          "(apt-get install -y --no-install-recommends python3-yaml python3-jsonschema)", file=sys.stderr)
    sys.exit(1)

# The server's contract (docs/server.md, docs/container.md; docs/fleet.md).
GAME_PORT = 7777
METRICS_PORT = 9100
KEY_MOUNT = "/run/secrets"
KEY_NAME = "foothold_key"
IMAGE_UID = 10001
DEFAULT_HEALTH_INTERVAL = 2      # --agones-health-interval
DEFAULT_DRAIN_SECONDS = 10       # --drain-seconds
COUNTER = "players"
CORE_KINDS = {("v1", "Secret"), ("v1", "ConfigMap"), ("networking.k8s.io/v1", "NetworkPolicy")}
POD_LABEL = ("app.kubernetes.io/name", "foothold")  # what the game servers' pod template carries
GAMESERVER_SPEC_PATHS = {  # where a kind holds a GameServer spec
    "GameServer": ("spec",),
    "Fleet": ("spec", "template", "spec"),
    "GameServerSet": ("spec", "template", "spec"),
}

DNS_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
LABEL_VALUE = r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$"
# The root's metadata, as the API server checks ObjectMeta (a CRD's schema leaves it out).
OBJECT_META = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "maxLength": 253, "pattern": DNS_SUBDOMAIN},
        "generateName": {"type": "string", "maxLength": 253},
        "namespace": {"type": "string", "maxLength": 63, "pattern": r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},
        "labels": {"type": "object",
                   "additionalProperties": {"type": "string", "maxLength": 63, "pattern": LABEL_VALUE}},
        "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
        "finalizers": {"type": "array", "items": {"type": "string"}},
        "ownerReferences": {"type": "array", "items": {"type": "object"}},
        "uid": {"type": "string"},
        "resourceVersion": {"type": "string"},
        "generation": {"type": "integer"},
        "creationTimestamp": {"type": ["string", "null"]},
        "deletionTimestamp": {"type": ["string", "null"]},
        "deletionGracePeriodSeconds": {"type": "integer"},
        "managedFields": {"type": "array"},
        "selfLink": {"type": "string"},
    },
}
INT_RANGES = {"int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}
DROPPED = {"description", "title", "example", "externalDocs", "default", "format", "readOnly", "writeOnly",
           "deprecated", "discriminator", "xml"}


# --- reading YAML as Kubernetes does -------------------------------------------------------------

class ManifestLoader(yaml.SafeLoader):
    """YAML 1.1 as kubectl reads it, except that a timestamp stays a string (as in JSON)."""


ManifestLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def path_text(path):
    """('spec', 'ports', 0, 'portPolicy') -> $.spec.ports[0].portPolicy"""
    out = "$"
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", part):
            out += "." + part
        else:
            out += "[" + json.dumps(part) + "]"
    return out


def node_lines(node, path, lines, duplicates):
    """Maps every path of a composed YAML document to its line, and finds keys given twice."""
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        seen = {}
        for key_node, value_node in node.value:
            key = key_node.value
            if key in seen:
                duplicates.append((path + (key,), key_node.start_mark.line + 1, seen[key]))
            seen[key] = key_node.start_mark.line + 1
            node_lines(value_node, path + (key,), lines, duplicates)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            node_lines(item, path + (i,), lines, duplicates)


def read_documents(file):
    """[(index from 1, object, {path: line}, [(path, line, first line)])], or raises yaml.YAMLError."""
    with open(file, encoding="utf-8") as f:
        text = f.read()
    loader = ManifestLoader(text)
    documents = []
    try:
        index = 0
        while loader.check_node():
            node = loader.get_node()
            index += 1
            lines, duplicates = {}, []
            node_lines(node, (), lines, duplicates)
            obj = loader.construct_document(node)
            if obj is not None:
                documents.append((index, obj, lines, duplicates))
    finally:
        loader.dispose()
    return documents


# --- the CRDs' OpenAPI v3 schemas as JSON Schema -------------------------------------------------

def convert(schema):
    """A structural OpenAPI v3 schema (Kubernetes' dialect) as a draft-4 JSON Schema."""
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key in DROPPED or key.startswith("x-kubernetes-") or key == "nullable":
            continue
        if key in ("properties", "patternProperties", "definitions"):
            out[key] = {name: convert(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "not"):
            out[key] = [convert(s) for s in value] if isinstance(value, list) else convert(value)
        elif key in ("allOf", "anyOf", "oneOf"):
            out[key] = [convert(s) for s in value]
        else:
            out[key] = value
    extra = []
    if schema.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        if "anyOf" not in out:
            out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    preserve = schema.get("x-kubernetes-preserve-unknown-fields") is True
    if schema.get("x-kubernetes-embedded-resource"):
        props = out.setdefault("properties", {})
        props.setdefault("apiVersion", {"type": "string"})
        props.setdefault("kind", {"type": "string"})
        props.setdefault("metadata", {"type": "object"})
    if "properties" in out and "additionalProperties" not in out and not preserve:
        out["additionalProperties"] = False  # an undeclared field: kubectl's strict validation refuses it
    list_type = schema.get("x-kubernetes-list-type")
    if list_type == "set":
        out["uniqueItems"] = True
    elif list_type == "map" and schema.get("x-kubernetes-list-map-keys"):
        out["listMapKeys"] = schema["x-kubernetes-list-map-keys"]
    if schema.get("format") in INT_RANGES and out.get("type") == "integer":
        low, high = INT_RANGES[schema["format"]]
        extra.append({"minimum": low, "maximum": high})
    if schema.get("nullable") is True:
        if isinstance(out.get("type"), str):
            out["type"] = [out["type"], "null"]
        if "enum" in out and None not in out["enum"]:
            out["enum"] = list(out["enum"]) + [None]
        if "anyOf" in out:
            out["anyOf"] = out["anyOf"] + [{"type": "null"}]
    if extra:  # minimum and maximum bind numbers only: null still passes
        out["allOf"] = out.get("allOf", []) + extra
    return out


def list_map_keys(validator, keys, instance, schema):
    """x-kubernetes-list-type: map: no two items may have the same keys."""
    if not validator.is_type(instance, "array"):
        return
    seen = {}
    for i, item in enumerate(instance):
        if not isinstance(item, dict):
            continue
        identity = tuple(json.dumps(item.get(k), sort_keys=True) for k in keys)
        if identity in seen:
            names = ", ".join(f"{k}={item.get(k)!r}" for k in keys)
            yield jsonschema.ValidationError(f"items {seen[identity]} and {i} have the same {names}: "
                                             f"the list is a map keyed by {', '.join(keys)}", path=[i])
        else:
            seen[identity] = i


Validator = jsonschema.validators.extend(jsonschema.Draft4Validator, {"listMapKeys": list_map_keys})


def read_crds(install_yaml):
    """{(group, version, kind): (validator, "group/version Kind")}, {kind: [(group, [served versions])]}"""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(install_yaml, encoding="utf-8") as f:
        documents = [d for d in yaml.load_all(f, Loader=loader) if isinstance(d, dict)]
    schemas, by_kind = {}, {}
    for doc in documents:
        if doc.get("kind") != "CustomResourceDefinition":
            continue
        spec = doc.get("spec", {})
        group, kind = spec.get("group"), spec.get("names", {}).get("kind")
        served = []
        for version in spec.get("versions", []):
            if not version.get("served"):
                continue
            served.append(version["name"])
            raw = (version.get("schema") or spec.get("validation") or {}).get("openAPIV3Schema")
            if raw is None:
                raise ValueError(f"{install_yaml}: CRD {group} {kind} {version['name']} has no openAPIV3Schema")
            root = convert(raw)
            props = root.setdefault("properties", {})
            props["apiVersion"] = {"type": "string"}
            props["kind"] = {"type": "string"}
            props["metadata"] = OBJECT_META
            root["additionalProperties"] = False
            Validator.check_schema(root)
            schemas[(group, version["name"], kind)] = (Validator(root), f"{group}/{version['name']} {kind}")
        by_kind.setdefault(kind, []).append((group, served))
    return schemas, by_kind


# --- reporting -----------------------------------------------------------------------------------

class Report:
    def __init__(self):
        self.problems = 0

    def fail(self, where, path, message, lines=None):
        line = ""
        if lines is not None and path is not None:
            probe = tuple(path)
            while probe not in lines and probe:
                probe = probe[:-1]
            if probe in lines:
                line = f", line {lines[probe]}"
        at = f" {path_text(path)}:" if path is not None else ""
        print(f"FAIL {where}{line}:{at} {message}")
        self.problems += 1


def describe_error(error):
    """(path, message) of a schema error, said plainly."""
    path = list(error.absolute_path)
    if error.validator == "additionalProperties" and error.validator_value is False:
        allowed = sorted(error.schema.get("properties", {}))
        extras = sorted(set(error.instance) - set(allowed))
        out = []
        for extra in extras:
            close = difflib.get_close_matches(extra, allowed, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            shown = ", ".join(allowed) if len(allowed) <= 12 else ", ".join(allowed[:12]) + ", ..."
            out.append((path + [extra], f"unknown field: the schema has no {extra!r} here{hint}; it allows {shown}"))
        return out
    if error.validator == "anyOf" and error.context and all(e.validator == "type" for e in error.context):
        kinds = [t for e in error.context for t in ([e.validator_value] if isinstance(e.validator_value, str)
                                                  else e.validator_value) if t != "null"]
        wanted = " or ".join("an integer" if k == "integer" else f"a {k}" for k in kinds)
        return [(path, f"{error.instance!r} must be {wanted}")]
    if error.validator == "anyOf" and error.context:
        best = jsonschema.exceptions.best_match(error.context)
        return [(path + list(best.relative_path), best.message)]
    if error.validator == "required":
        missing = re.match(r"'([^']+)' is a required property", error.message)
        if missing:
            return [(path + [missing.group(1)], f"missing: {missing.group(1)!r} is required here")]
    return [(path, error.message)]


# --- Foothold's contract -------------------------------------------------------------------------

def get(obj, *keys):
    for key in keys:
        if isinstance(obj, dict):
            obj = obj.get(key)
        elif isinstance(obj, list) and isinstance(key, int) and -len(obj) <= key < len(obj):
            obj = obj[key]
        else:
            return None
    return obj


def env_value(container, name):
    for item in container.get("env") or []:
        if isinstance(item, dict) and item.get("name") == name:
            return item.get("value")
    return None


def env_int(container, name, default, fail, path):
    value = env_value(container, name)
    if value is None:
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        fail(path + ["env"], f"{name}={value!r} is not a whole number")
        return default


class Pod:
    """A GameServer spec's pod, its game server container, and their JSON paths."""

    def __init__(self, spec, base):
        self.spec, self.base = spec, base
        self.pod = get(spec, "template", "spec") or {}
        self.path = base + ["template", "spec"]
        containers = self.pod.get("containers") or []
        name = spec.get("container")
        if name is None and len(containers) == 1:
            self.index = 0
        else:
            self.index = next((i for i, c in enumerate(containers) if isinstance(c, dict) and c.get("name") == name),
                              None)
        self.container = containers[self.index] if self.index is not None else None
        self.cpath = self.path + ["containers", self.index]


def check_game_port(pod, fail):
    """A UDP port, portPolicy Dynamic, containerPort 7777 (= FOOTHOLD_PORT), on the game server's container."""
    ports = pod.spec.get("ports") or []
    game = [(i, p) for i, p in enumerate(ports) if isinstance(p, dict) and p.get("containerPort") == GAME_PORT]
    if not game:
        fail(pod.base + ["ports"], f"no port with containerPort {GAME_PORT}: the server listens on UDP {GAME_PORT} "
             "(FOOTHOLD_PORT)")
    for i, port in game:
        path = pod.base + ["ports", i]
        protocol = port.get("protocol", "UDP")  # Agones' default
        if protocol != "UDP":
            fail(path + ["protocol"], f"is {protocol}: Foothold speaks UDP only; protocol must be UDP")
        policy = port.get("portPolicy", "Dynamic")  # Agones' default
        if policy != "Dynamic":
            fail(path + ["portPolicy"], f"is {policy}: must be Dynamic (Agones picks a free host port for each "
                 "server; the server learns it from its GameServer's status)")
        if port.get("container") not in (None, pod.container.get("name")):
            fail(path + ["container"], f"opens the port on {port.get('container')!r}, not on the game server's "
                 f"container {pod.container.get('name')!r}")
    env_port = env_value(pod.container, "FOOTHOLD_PORT")
    if env_port is not None and str(env_port) != str(GAME_PORT):
        fail(pod.cpath + ["env"], f"FOOTHOLD_PORT={env_port!r}, but the GameServer's containerPort is {GAME_PORT}")


def check_key_mount(pod, index, mount, fail, secrets):
    """One mount at /run/secrets: read-only, a secret volume, the key file at foothold_key, readable by 10001."""
    path = pod.cpath + ["volumeMounts", index]
    if mount.get("readOnly") is not True:
        fail(path + ["readOnly"], "the key's mount must be readOnly: true")
    if mount.get("subPath"):
        fail(path + ["subPath"], "a subPath mount of a Secret never sees the Secret change; mount the volume")
    volumes = {v.get("name"): (i, v) for i, v in enumerate(pod.pod.get("volumes") or []) if isinstance(v, dict)}
    vi, volume = volumes.get(mount.get("name"), (None, None))
    if volume is None:
        fail(path + ["name"], f"names volume {mount.get('name')!r}, which template.spec.volumes lacks")
        return
    vpath = pod.path + ["volumes", vi]
    secret = volume.get("secret")
    if not isinstance(secret, dict):
        fail(vpath, f"the volume at {KEY_MOUNT} must be a secret volume (the Secret holding {KEY_NAME})")
        return
    mode, key = secret.get("defaultMode", 0o644), KEY_NAME  # Kubernetes' default mode
    if secret.get("items") is not None:
        item = next((it for it in secret["items"] if isinstance(it, dict) and it.get("path") == KEY_NAME), None)
        if item is None:
            fail(vpath + ["secret", "items"], f"no item with path {KEY_NAME}: the key would not be at "
                 f"{KEY_MOUNT}/{KEY_NAME}")
            return
        mode, key = item.get("mode", mode), item.get("key")
    fs_group = get(pod.pod, "securityContext", "fsGroup")
    if isinstance(mode, int) and not (mode & 0o004 or (fs_group is not None and mode & 0o040)):
        fail(vpath + ["secret", "defaultMode"], f"mode 0{mode:o} does not let uid {IMAGE_UID} (the image's user) "
             "read the key: give others read (0444), or set securityContext.fsGroup and give the group read (0440)")
    secrets.append((secret.get("secretName"), key))


def check_key(pod, fail, secrets):
    """The Secret volume at /run/secrets, and FOOTHOLD_KEY_FILE (if set) pointing into it."""
    mounts = [(i, m) for i, m in enumerate(pod.container.get("volumeMounts") or [])
              if isinstance(m, dict) and str(m.get("mountPath", "")).rstrip("/") == KEY_MOUNT]
    if not mounts:
        fail(pod.cpath + ["volumeMounts"], f"no volume mounted at {KEY_MOUNT}: the server reads its private key "
             f"from {KEY_MOUNT}/{KEY_NAME} (the Secret foothold-key, see secret.yaml)")
    for i, mount in mounts:
        check_key_mount(pod, i, mount, fail, secrets)
    key_file = env_value(pod.container, "FOOTHOLD_KEY_FILE")
    if key_file is not None and key_file != f"{KEY_MOUNT}/{KEY_NAME}":
        fail(pod.cpath + ["env"], f"FOOTHOLD_KEY_FILE={key_file!r}, but the key is mounted at {KEY_MOUNT}/{KEY_NAME}")


def check_probes(pod, fail):
    """FOOTHOLD_METRICS_ADDRESS on 9100; liveness /healthz, readiness /readyz (and startup, if any) there."""
    container, cpath = pod.container, pod.cpath
    metrics = env_value(container, "FOOTHOLD_METRICS_ADDRESS")
    if metrics is None:
        fail(cpath + ["env"], "no FOOTHOLD_METRICS_ADDRESS: /healthz and /readyz are served only with "
             f"--metrics-address (0.0.0.0:{METRICS_PORT})")
    elif not str(metrics).endswith(f":{METRICS_PORT}"):
        fail(cpath + ["env"], f"FOOTHOLD_METRICS_ADDRESS={metrics!r}, but the probes are on port {METRICS_PORT}")
    named = {p.get("name"): p.get("containerPort") for p in container.get("ports") or []
             if isinstance(p, dict) and p.get("name")}
    for probe, paths in (("livenessProbe", ("/healthz",)), ("readinessProbe", ("/readyz",)),
                         ("startupProbe", ("/healthz", "/readyz"))):
        if probe == "startupProbe" and container.get(probe) is None:
            continue  # optional
        http = get(container, probe, "httpGet")
        if not isinstance(http, dict):
            fail(cpath + [probe], f"must be an httpGet probe of {paths[0]} on port {METRICS_PORT}")
            continue
        if named.get(http.get("port"), http.get("port")) != METRICS_PORT:
            fail(cpath + [probe, "httpGet", "port"], f"is {http.get('port')!r}: the server serves its probes on "
                 f"{METRICS_PORT} (FOOTHOLD_METRICS_ADDRESS)")
        if http.get("path") not in paths:
            fail(cpath + [probe, "httpGet", "path"], f"is {http.get('path')!r}: must be {' or '.join(paths)}")


def check_counter_and_lifetime(pod, fail):
    """The players Counter (capacity = FOOTHOLD_MAX_CLIENTS), Agones health, the termination grace period."""
    spec, base, container, cpath = pod.spec, pod.base, pod.container, pod.cpath
    counter = get(spec, "counters", COUNTER)
    max_clients = env_value(container, "FOOTHOLD_MAX_CLIENTS")
    if not isinstance(counter, dict):
        fail(base + ["counters"], f"no {COUNTER!r} Counter: the server keeps its connected clients in it")
    elif not isinstance(counter.get("capacity"), int) or counter["capacity"] < 1:
        fail(base + ["counters", COUNTER, "capacity"], f"the {COUNTER} Counter needs a capacity "
             "(FOOTHOLD_MAX_CLIENTS)")
    elif max_clients is not None and str(counter["capacity"]) != str(max_clients):
        fail(base + ["counters", COUNTER, "capacity"], f"is {counter['capacity']}, but FOOTHOLD_MAX_CLIENTS is "
             f"{max_clients}: they must be equal")
    health = spec.get("health") or {}
    interval = env_int(container, "FOOTHOLD_AGONES_HEALTH_INTERVAL", DEFAULT_HEALTH_INTERVAL, fail, cpath)
    period = health.get("periodSeconds", 5)  # Agones' default
    if health.get("disabled") is True:
        fail(base + ["health", "disabled"], "Agones health checking is off: a stalled tick would never be noticed")
    elif period < 2 * interval:
        fail(base + ["health", "periodSeconds"], f"is {period}: must hold two of the server's health pings "
             f"(every {interval} s, FOOTHOLD_AGONES_HEALTH_INTERVAL), so at least {2 * interval}")
    drain = env_int(container, "FOOTHOLD_DRAIN_SECONDS", DEFAULT_DRAIN_SECONDS, fail, cpath)
    grace = pod.pod.get("terminationGracePeriodSeconds", 30)  # Kubernetes' default
    if not isinstance(grace, int) or grace <= drain:
        fail(pod.path + ["terminationGracePeriodSeconds"], f"is {grace}: must be above the drain time "
             f"({drain} s, FOOTHOLD_DRAIN_SECONDS), or the kubelet kills the server mid-drain")


def check_gameserver_spec(spec, base, fail, secrets):
    """Foothold's contract for one GameServer spec at path `base`; `fail(path, message)` reports a problem,
    and each (secret name, key) the key's volume needs is added to `secrets`."""
    pod = Pod(spec, base)
    if pod.container is None:
        name = spec.get("container")
        fail(base + ["container"], f"names container {name!r}, which template.spec.containers does not have"
             if name else "several containers and no spec.container naming the game server's")
        return
    check_game_port(pod, fail)
    check_key(pod, fail, secrets)
    check_probes(pod, fail)
    check_counter_and_lifetime(pod, fail)


def admits(rule, protocol, port):
    """True when an ingress rule's ports (none: every port) include `protocol` `port`."""
    ports = rule.get("ports")
    if not ports:
        return True
    return any(isinstance(p, dict) and p.get("protocol", "TCP") == protocol and p.get("port") in (None, port)
               for p in ports)


def open_peer(peer):
    """Why a `from` peer admits more than the monitoring namespace and the nodes, or None."""
    if not isinstance(peer, dict):
        return "is not a mapping"
    if "ipBlock" in peer:
        cidr = str(get(peer, "ipBlock", "cidr"))
        return f"ipBlock {cidr} is every address" if cidr in ("0.0.0.0/0", "::/0") else None
    namespaces = peer.get("namespaceSelector")
    if namespaces is None:
        return "selects pods of the policy's own namespace (the game servers themselves and anything beside them)"
    if not get(namespaces, "matchLabels") and not get(namespaces, "matchExpressions"):
        return "namespaceSelector {} selects every namespace"
    return None


def check_network_policy(doc, fail):
    """Selects the game server pods; UDP 7777 from anywhere; TCP 9100 only from named namespaces and node
    addresses (the metrics port is not for players, issue #63)."""
    spec = doc.get("spec") or {}
    labels = get(spec, "podSelector", "matchLabels") or {}
    if labels.get(POD_LABEL[0]) != POD_LABEL[1]:
        fail(["spec", "podSelector", "matchLabels"], f"must select the game servers ({POD_LABEL[0]}: {POD_LABEL[1]})")
    if "Ingress" not in (spec.get("policyTypes") or []):
        fail(["spec", "policyTypes"], "must include Ingress: the policy is about who reaches the pods")
    rules = spec.get("ingress") or []
    if not any(isinstance(r, dict) and not r.get("from") and admits(r, "UDP", GAME_PORT) for r in rules):
        fail(["spec", "ingress"], f"no rule admits UDP {GAME_PORT} from everywhere: players could not connect")
    metrics_rules = 0
    for i, rule in enumerate(rules):
        if not isinstance(rule, dict) or not admits(rule, "TCP", METRICS_PORT):
            continue
        metrics_rules += 1
        peers = rule.get("from")
        if not peers:
            fail(["spec", "ingress", i], f"admits TCP {METRICS_PORT} (metrics and probes) from anywhere: "
                 "only the monitoring namespace and the nodes should reach it")
        for j, peer in enumerate(peers or []):
            why = open_peer(peer)
            if why:
                fail(["spec", "ingress", i, "from", j], f"admits TCP {METRICS_PORT} too widely: {why}")
    if metrics_rules == 0:
        fail(["spec", "ingress"], f"no rule admits TCP {METRICS_PORT}: Prometheus and the kubelet's probes could "
             "not reach the server, and the kubelet would restart it")


def first_difference(a, b, path=()):
    """The first path at which two YAML values differ, or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                return path + (key,)
            found = first_difference(a[key], b[key], path + (key,))
            if found is not None:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, path + (i,))
            if found is not None:
                return found
        return None if len(a) == len(b) else path + (min(len(a), len(b)),)
    return None if a == b and type(a) is type(b) else path


# --- the directory -------------------------------------------------------------------------------

class Checker:
    def __init__(self, install_yaml, manifest_dir, schemas, by_kind):
        self.install_yaml, self.manifest_dir = install_yaml, manifest_dir
        self.schemas, self.by_kind = schemas, by_kind
        self.report = Report()
        self.documents = 0
        self.gameservers, self.fleets, self.autoscalers = [], [], []
        self.fleet_names = set()  # every Fleet's, valid or not, so that one error is not reported twice
        self.secrets_used, self.secrets_given = [], {}

    def check_file(self, file):
        try:
            documents = read_documents(os.path.join(self.manifest_dir, file))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
            self.report.fail(file, None, f"not readable as YAML: {error}")
            return
        if not documents:
            self.report.fail(file, None, "holds no document")
        for index, doc, lines, duplicates in documents:
            self.documents += 1
            kind = get(doc, "kind")
            name = get(doc, "metadata", "name") or get(doc, "metadata", "generateName") or "(no name)"
            where = f"{file}: document {index} ({kind or 'no kind'} {name})"

            def fail(path, message, where=where, lines=lines):
                self.report.fail(where, path, message, lines)

            for path, line, first in duplicates:
                fail(list(path), f"given twice (lines {first} and {line}): YAML keeps only the last")
            self.check_document(file, doc, kind, name, fail)

    def check_document(self, file, doc, kind, name, fail):
        before = self.report.problems
        if not isinstance(doc, dict) or not isinstance(doc.get("apiVersion"), str) or not isinstance(kind, str):
            fail([], "needs apiVersion and kind (strings): not a Kubernetes object")
            return
        api_version = doc["apiVersion"]
        if (api_version, kind) in CORE_KINDS:
            self.check_core(file, doc, kind, name, fail, before)
            return
        if kind == "Fleet":
            self.fleet_names.add(name)
        group, _, version = api_version.rpartition("/")
        target = self.schemas.get((group, version, kind))
        if target is None:
            self.no_crd(api_version, kind, fail)
            return
        validator, label = target
        for error in sorted(validator.iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path]):
            for path, message in describe_error(error):
                fail(path, message)
        if get(doc, "metadata", "name") is None and get(doc, "metadata", "generateName") is None:
            fail(["metadata", "name"], "missing: metadata.name (or generateName) is required")
        if self.report.problems > before:
            return
        print(f"{file}: {kind} {name}: valid against {label}")
        if kind in GAMESERVER_SPEC_PATHS:
            keys = GAMESERVER_SPEC_PATHS[kind]
            spec = get(doc, *keys)
            check_gameserver_spec(spec, list(keys), fail, self.secrets_used)
            if self.report.problems == before:
                print(f"{file}: {kind} {name}: Foothold's contract holds (UDP {GAME_PORT} Dynamic, key at "
                      f"{KEY_MOUNT}, probes on {METRICS_PORT}, {COUNTER} Counter)")
            (self.gameservers if kind == "GameServer" else self.fleets).append((file, kind, name, spec, keys, fail))
        if kind == "FleetAutoscaler":
            self.autoscalers.append((get(doc, "spec", "fleetName"), fail))

    def check_core(self, file, doc, kind, name, fail, before):
        if not isinstance(get(doc, "metadata", "name"), str):
            fail(["metadata", "name"], f"missing: a {kind} needs metadata.name")
        if self.report.problems == before:
            print(f"{file}: {kind} {name}: core {doc['apiVersion']} {kind} (apiVersion, kind, metadata.name)")
        if kind == "Secret":
            keys = set(doc.get("data") or {}) | set(doc.get("stringData") or {})
            self.secrets_given[get(doc, "metadata", "name")] = (file, keys)
        if kind == "NetworkPolicy":
            check_network_policy(doc, fail)

    def no_crd(self, api_version, kind, fail):
        known = self.by_kind.get(kind)
        if known:
            served = "; ".join(f"{g}/{v}" for g, vs in known for v in vs) or "no served version"
            fail(["apiVersion"], f"{api_version} {kind} is not a served version of the CRD in {self.install_yaml} "
                 f"(it serves {served})")
        else:
            crds = ", ".join(sorted(self.by_kind))
            fail(["kind"], f"{api_version} {kind} has no CRD in {self.install_yaml} ({crds}) "
                 f"and is not a core kind this check knows ({', '.join(k for _, k in sorted(CORE_KINDS))})")

    def check_across(self):
        """What holds between files: the autoscaler's Fleet, the Fleet's template, the Secret."""
        for fleet_name, fail in self.autoscalers:
            if fleet_name not in self.fleet_names:
                fail(["spec", "fleetName"], f"names Fleet {fleet_name!r}, which {self.manifest_dir} does not hold "
                     f"(it holds: {', '.join(sorted(self.fleet_names)) or 'none'})")
        if len(self.gameservers) == 1:
            gfile, _, gname, gspec, _, _ = self.gameservers[0]
            for _, kind, _, spec, keys, fail in self.fleets:
                diff = first_difference(gspec, spec)
                if diff is not None:
                    fail(list(keys) + list(diff), f"the {kind}'s template differs here from {gfile}'s GameServer "
                         f"{gname} spec: keep the two equal")
        for secret_name, key in sorted(set(self.secrets_used), key=str):
            if secret_name not in self.secrets_given:
                self.report.fail(self.manifest_dir, None, f"no Secret {secret_name!r}: the key's volume names it "
                                 "(secret.yaml; create the real one with kubectl create secret generic, docs/fleet.md)")
            elif key not in self.secrets_given[secret_name][1]:
                self.report.fail(self.secrets_given[secret_name][0], None, f"Secret {secret_name!r} has no key "
                                 f"{key!r}, which the key's volume mounts")


def main(argv):
    if len(argv) != 3:
        print("usage: agones_manifests.py INSTALL_YAML MANIFEST_DIR", file=sys.stderr)
        return 2
    install_yaml, manifest_dir = argv[1], argv[2]
    if not os.path.exists(install_yaml):
        print(f"SKIP: {install_yaml} is absent (the Agones release's install.yaml, in ../shared/agones/)")
        return 77
    if not os.path.isdir(manifest_dir):
        print(f"agones_manifests: {manifest_dir} is not a directory", file=sys.stderr)
        return 2
    try:
        schemas, by_kind = read_crds(install_yaml)
    except (OSError, yaml.YAMLError, ValueError, jsonschema.SchemaError) as error:
        print(f"FAIL {install_yaml}: cannot read the CRDs: {error}")
        return 1
    if not schemas:
        print(f"FAIL {install_yaml}: holds no CustomResourceDefinition")
        return 1
    files = sorted(f for f in os.listdir(manifest_dir) if f.endswith(".yaml"))
    if not files:
        print(f"FAIL {manifest_dir}: no *.yaml manifest")
        return 1
    checker = Checker(install_yaml, manifest_dir, schemas, by_kind)
    for file in files:
        checker.check_file(file)
    checker.check_across()
    if checker.report.problems:
        print(f"agones_manifests: {checker.report.problems} problem(s) in {manifest_dir}")
        return 1
    print(f"agones_manifests: {checker.documents} documents in {len(files)} files valid against {install_yaml}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
