#ifndef FOOTHOLD_CLIENT_H
#define FOOTHOLD_CLIENT_H
/**
 * @file
 * Foothold's client as a C API: what a game links to play on a Foothold server.
 *
 * The client runs the same movement step as the server: it predicts its own character every fixed
 * tick, the server's snapshots confirm or correct it, and the other characters are interpolated
 * between snapshots. The game calls foothold_client_update() once per frame with its own clock, at
 * any frame rate; the client runs the ticks that are due inside it.
 *
 *   foothold_client_config config;
 *   foothold_client_config_init(&config);
 *   config.world = "arena";                        // or the level's .obj / .gltf / .glb file
 *   foothold_client* client = NULL;
 *   char error[256];
 *   if (foothold_client_create(&config, &client, error, sizeof error) != FOOTHOLD_CLIENT_OK) { ... }
 *   foothold_client_connect_token_file(client, "player.token");
 *   for (;;) {                                     // every frame
 *     foothold_client_set_input(client, stick_x, stick_z, buttons);
 *     foothold_client_update(client, seconds_since_start);
 *     foothold_client_local_character(client, &me);
 *     foothold_client_remote_characters(client, others, 64, &count);
 *   }
 *   foothold_client_destroy(client);
 *
 * Errors: every function that can fail returns a foothold_client_result; the message of the last
 * failure on a handle is foothold_client_last_error(). No C++ exception ever leaves this API.
 *
 * Threads: a handle is not thread-safe; use each one from one thread at a time (any thread). Distinct
 * handles are independent and may be used from different threads at once.
 *
 * Memory: create and connect allocate; the per-frame calls (update, set_input, the getters) do not
 * allocate once connected.
 *
 * Units: metres, seconds, metres per second; world axes, Y up. Positions are the capsule's centre.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Platforms: Linux on x86-64 and arm64, Windows on x86-64 (foothold-client.dll), the same ticks bit
 * for bit on all three. On Windows the library defines FOOTHOLD_CLIENT_BUILDING_DLL while it is built;
 * a program that links it imports the functions. */
#if defined(_WIN32)
#if defined(FOOTHOLD_CLIENT_BUILDING_DLL)
#define FOOTHOLD_CLIENT_API __declspec(dllexport)
#else
#define FOOTHOLD_CLIENT_API __declspec(dllimport)
#endif
#else
#define FOOTHOLD_CLIENT_API __attribute__((visibility("default")))
#endif
/** @def FOOTHOLD_CLIENT_API
 *  Marks every function of this API: exported by the library, imported by a program (Windows). */

/** This header's version; foothold_client_version() reports the library's. */
#define FOOTHOLD_CLIENT_VERSION_MAJOR 0
#define FOOTHOLD_CLIENT_VERSION_MINOR 1 /**< this header's minor version */
#define FOOTHOLD_CLIENT_VERSION_PATCH 0 /**< this header's patch version */

/** A client: one connection to one server. Opaque. */
typedef struct foothold_client foothold_client;

/** What a call did. Any value but FOOTHOLD_CLIENT_OK leaves a message in foothold_client_last_error(). */
typedef enum foothold_client_result {
  FOOTHOLD_CLIENT_OK = 0,             /**< it did what was asked */
  FOOTHOLD_CLIENT_ERROR_ARGUMENT = 1, /**< a null handle or pointer, a non-finite number, a value out of range */
  FOOTHOLD_CLIENT_ERROR_WORLD = 2,    /**< the world could not be loaded */
  FOOTHOLD_CLIENT_ERROR_SETTINGS = 3, /**< the settings file could not be read or is invalid */
  FOOTHOLD_CLIENT_ERROR_TOKEN = 4,    /**< the connect token is unreadable, malformed, expired or not valid yet */
  FOOTHOLD_CLIENT_ERROR_NETWORK = 5,  /**< no socket, or the server address is unusable */
  FOOTHOLD_CLIENT_ERROR_STATE = 6,    /**< not now: e.g. connecting twice, or reading a character before connecting */
  FOOTHOLD_CLIENT_ERROR_INTERNAL = 7, /**< out of memory, or a bug: the message says which */
  FOOTHOLD_CLIENT_ERROR_QUEUE_FULL = 8 /**< the message queue has no room now: send it again after an update */
} foothold_client_result;

/** The channel a message travels on (foothold_client_send_message, foothold_client_receive_message). */
typedef enum foothold_client_channel {
  FOOTHOLD_CLIENT_RELIABLE = 0,  /**< delivered exactly once and in order, or the session ends; 1 byte to 64 KiB */
  FOOTHOLD_CLIENT_UNRELIABLE = 1 /**< sent once: may be lost, never delivered twice or out of order; 1 byte to 1 KiB */
} foothold_client_channel;

/** Where the connection is. */
typedef enum foothold_client_status {
  FOOTHOLD_CLIENT_IDLE = 0,         /**< created, not connecting yet */
  FOOTHOLD_CLIENT_CONNECTING = 1,   /**< handshake under way */
  FOOTHOLD_CLIENT_CONNECTED = 2,    /**< in a session: characters can be read */
  FOOTHOLD_CLIENT_REJECTED = 3,     /**< the server refused (full, world or settings mismatch, ...): see last_error */
  FOOTHOLD_CLIENT_FAILED = 4,       /**< no answer to the handshake within the connect timeout */
  FOOTHOLD_CLIENT_TIMED_OUT = 5,    /**< the server went silent */
  FOOTHOLD_CLIENT_DISCONNECTED = 6  /**< the client or the server ended the session */
} foothold_client_status;

/** Why a session ended (foothold_client_end_reason), for code; foothold_client_last_error says it for people. */
typedef enum foothold_client_end {
  FOOTHOLD_CLIENT_END_NONE = 0,               /**< still running, or never started */
  FOOTHOLD_CLIENT_END_CLIENT_QUIT = 1,        /**< foothold_client_disconnect() */
  FOOTHOLD_CLIENT_END_NO_SERVER = 2,          /**< nothing listens at the address (its port refused the connect request) */
  FOOTHOLD_CLIENT_END_NO_ANSWER = 3,          /**< no answer: no server there, a firewall, or a token it cannot open (sealed with another key) */
  FOOTHOLD_CLIENT_END_TOKEN_EXPIRED = 4,      /**< no answer, and the token has expired by this machine's clock: mint a new one */
  FOOTHOLD_CLIENT_END_HANDSHAKE_TIMEOUT = 5,  /**< the server answered the request, then went silent before accepting */
  FOOTHOLD_CLIENT_END_TIMED_OUT = 6,          /**< connected, then no word from the server for config.server_timeout_s */
  FOOTHOLD_CLIENT_END_VERSION_MISMATCH = 7,   /**< the server speaks another protocol version (it said so in clear, then answered nothing this client could open): update one of them */
  FOOTHOLD_CLIENT_END_WORLD_MISMATCH = 8,     /**< the server runs another world */
  FOOTHOLD_CLIENT_END_SETTINGS_MISMATCH = 9,  /**< the server moves characters with other settings */
  FOOTHOLD_CLIENT_END_SERVER_FULL = 10,       /**< the server, or the players from this address, are at their limit */
  FOOTHOLD_CLIENT_END_SERVER_SHUTDOWN = 11,   /**< the server is shutting down */
  FOOTHOLD_CLIENT_END_KICKED = 12,            /**< the server's game removed the character */
  FOOTHOLD_CLIENT_END_REPLACED = 13,          /**< the same player connected again from this address */
  FOOTHOLD_CLIENT_END_CLIENT_ID_IN_USE = 14,  /**< the token's client id is playing from another address */
  FOOTHOLD_CLIENT_END_WRONG_SERVER = 15,      /**< the token does not name the address the server was reached at */
  FOOTHOLD_CLIENT_END_REJECTED = 16,          /**< refused for another reason (last_error has the server's message) */
  FOOTHOLD_CLIENT_END_MESSAGES = 17           /**< the message layer broke (either side), or stood still */
} foothold_client_end;

/** The ground a character stands on. */
typedef enum foothold_client_ground {
  FOOTHOLD_CLIENT_GROUND_NONE = 0,     /**< airborne */
  FOOTHOLD_CLIENT_GROUND_WALKABLE = 1, /**< a surface no steeper than the settings' max slope */
  FOOTHOLD_CLIENT_GROUND_TAGGED = 2,   /**< a surface tagged always_ground */
  FOOTHOLD_CLIENT_GROUND_CREVICE = 3,  /**< wedged between two steep faces */
  FOOTHOLD_CLIENT_GROUND_PIT = 4       /**< wedged between three steep faces */
} foothold_client_ground;

/** Input buttons (bits of foothold_client_set_input's `buttons`). */
#define FOOTHOLD_CLIENT_BUTTON_JUMP 1u
#define FOOTHOLD_CLIENT_BUTTON_CROUCH 2u /**< crouch, held (the capsule shortens to the settings' crouch_height) */

/** What to create a client with. Fill it with foothold_client_config_init() first, then set fields. */
typedef struct foothold_client_config {
  uint32_t struct_size;        /**< sizeof(foothold_client_config), set by config_init */
  const char* world;           /**< "arena" (the embedded world) or an .obj, .gltf or .glb path; copied */
  const char* settings_file;   /**< a movement settings TOML file, or NULL for the defaults; read at create */
  const char* server;          /**< "HOST:PORT" to send to, or NULL for the token's first address */
  double connect_timeout_s;    /**< give up the handshake after this (default 5) */
  double server_timeout_s;     /**< end a session the server is silent in for this long (default 10) */
  uint32_t message_queue_bytes; /**< reliable message bytes queued and unacknowledged at most (default 262144, 65536..16777216) */
  uint32_t message_rate;        /**< message bytes per second sent at most (default 65536, 1024..10000000); at most the server's message_rate, which it holds each client to */
  /** Times each reliable message goes before waiting for its acknowledgement (default 1, 1..4), a
   *  datagram apart: for messages worth little a round trip late (a shot the server judges against
   *  its rewind window), so that one lost datagram costs a tick, not a retransmission time. */
  uint32_t message_copies;
  /** How foothold_client_draw_local() draws: 0 (default) interpolates between the two predicted
   *  ticks around the frame, a tick (16.7 ms at 60 Hz) behind the newest; 1 carries the newest tick on
   *  by its velocity (no latency, a small pop wherever the motion turns). */
  int32_t draw_extrapolate;
  double draw_smoothing_s;     /**< a correction is taken in with this time constant (default 0.1, 0..2; 0: at once) */
  double draw_snap_m;          /**< a correction larger than this snaps (a teleport, a respawn): default 2, 0.01..100 metres */
  /** How long foothold_client_draw_remotes() carries another character on past its newest snapshot
   *  when the next is late, by the motion its last two showed (default 0.1, 0..1 seconds; 0: held at
   *  once); held after that until the snapshot comes. */
  double draw_remote_extrapolate_s;
  /** A network conditioner between the client and its socket, for testing a game on a bad network
   *  (all 0, the default: off). Every datagram either way is lost with probability condition_loss,
   *  arrives twice with condition_duplicate, is held back behind later ones with condition_reorder
   *  (each 0..1), and is delayed condition_latency_ms one way, varying by +- condition_jitter_ms
   *  (each 0..10000). The environment variable FOOTHOLD_CLIENT_CONDITIONER, when set, takes the
   *  place of all five: "loss=0.05,duplicate=0,reorder=0.01,latency_ms=50,jitter_ms=10" (any of the
   *  keys; the others 0). When on, foothold_client_create says so on stderr. */
  double condition_loss;
  double condition_duplicate;    /**< the conditioner: the probability a datagram arrives twice (0..1) */
  double condition_reorder;      /**< the conditioner: the probability a datagram is held back behind later ones (0..1) */
  double condition_latency_ms;   /**< the conditioner: one-way delay, milliseconds (0..10000) */
  double condition_jitter_ms;    /**< the conditioner: the delay varies by up to this, milliseconds (0..10000) */
} foothold_client_config;

/** A character, as the game draws it. */
typedef struct foothold_client_character {
  uint32_t id;           /**< the server's character id */
  double position[3];    /**< capsule centre, metres */
  double velocity[3];    /**< metres per second (remote characters: from their last two snapshots) */
  int32_t ground;        /**< a foothold_client_ground */
  int32_t crouched;      /**< 1 when crouched (the capsule is the settings' crouch_height tall) */
  uint32_t platform;     /**< the mover stood on, as index + 1; 0 for none */
  uint32_t tick;         /**< local: the predicted tick; remote: the newest snapshot tick it is drawn from */
  uint64_t client_id;    /**< the player's client id, from their connect token (the game's name for them) */
} foothold_client_character;

/** A change to which characters this client sees (foothold_client_poll_event). */
typedef enum foothold_client_event_kind {
  FOOTHOLD_CLIENT_EVENT_NONE = 0,        /**< no event waiting */
  FOOTHOLD_CLIENT_EVENT_APPEARED = 1,    /**< a character came into view: a player who joined, or one now within range */
  FOOTHOLD_CLIENT_EVENT_LEFT_VIEW = 2,   /**< it went out of range; its player is still in the match */
  FOOTHOLD_CLIENT_EVENT_LEFT_MATCH = 3   /**< its player left the match (quit, timed out, removed by the game) */
} foothold_client_event_kind;

/** One change to the view, naming the character and its player. */
typedef struct foothold_client_event {
  int32_t kind;           /**< a foothold_client_event_kind */
  uint32_t character_id;  /**< the server's character id (as in foothold_client_character.id) */
  uint64_t client_id;     /**< its player's client id, from their connect token (0 for an NPC) */
  uint32_t tick;          /**< the snapshot that showed the change */
  int32_t npc;            /**< 1: a character the server's game drives (an NPC, no player); 0: a player's (protocol 13; in what was padding: the size is unchanged) */
} foothold_client_event;

/** What the connection has seen. Counters are totals since connect. */
typedef struct foothold_client_stats {
  uint32_t struct_size;          /**< sizeof(foothold_client_stats), set by foothold_client_get_stats */
  double rtt_ms;                 /**< the latest round trip: an input sent to the kernel's receive stamp of the snapshot echoing it, less the server's hold (the network's, not the frame loop's); -1 before the first */
  double rtt_ms_smoothed;        /**< the round trip, smoothed (1/8 per sample); -1 before the first */
  double connect_ms;             /**< from the first update after connect to the one that took the server's accept, on the application's clock; -1 until connected */
  uint64_t ticks;                /**< ticks predicted */
  uint64_t snapshots;            /**< snapshots used */
  uint64_t corrections;          /**< predictions the server corrected, of every kind below and corrections_server */
  uint64_t corrections_input;    /**< ... because the server had to use another input (late or lost packets) */
  uint64_t corrections_interaction; /**< ... because another character moved otherwise than predicted */
  uint64_t corrections_unexplained; /**< ... with neither cause: a determinism bug, please report */
  uint64_t packets_in;           /**< UDP datagrams received */
  uint64_t packets_out;          /**< UDP datagrams sent */
  uint64_t bytes_in;             /**< UDP payload bytes received */
  uint64_t bytes_out;            /**< UDP payload bytes sent */
  int32_t input_lead_ticks;      /**< how early our inputs reach the server, in ticks (the input buffer) */
  uint32_t server_tick;          /**< the newest snapshot's tick */
  uint32_t remote_count;         /**< remote characters being interpolated */
  uint64_t messages_sent;        /**< messages queued by foothold_client_send_message, both channels */
  uint64_t messages_received;    /**< messages handed over by foothold_client_receive_message */
  uint64_t message_bytes_out;    /**< bytes of the message sections sent */
  uint64_t message_bytes_in;     /**< bytes of the message sections received */
  uint64_t message_retransmissions; /**< reliable fragments sent again */
  double message_rtt_ms;         /**< the round trip the message acknowledgements measured; -1 before the first */
  uint64_t corrections_server;   /**< corrections because the server's game moved or changed the character (a teleport, a launch, a push, a freeze, a movement profile) */
} foothold_client_stats;

/** The library's version, "MAJOR.MINOR.PATCH". */
FOOTHOLD_CLIENT_API const char* foothold_client_version(void);

/** Sets every field of `config` to its default (world "arena"). Does nothing with NULL. */
FOOTHOLD_CLIENT_API void foothold_client_config_init(foothold_client_config* config);

/**
 * Loads the world and settings and opens a UDP socket. On success *out is the new client; on failure
 * *out is NULL and, when `error` is not NULL, the message is written there (cut to error_size - 1
 * bytes and terminated).
 */
FOOTHOLD_CLIENT_API foothold_client_result foothold_client_create(const foothold_client_config* config, foothold_client** out,
                                                                  char* error, size_t error_size);

/** Says goodbye to the server if connected, closes the socket and frees the client. NULL is ignored. */
FOOTHOLD_CLIENT_API void foothold_client_destroy(foothold_client* client);

/**
 * The message of the last failed call on this client; when the last call did not fail and the
 * session has ended (REJECTED, FAILED, TIMED_OUT, DISCONNECTED), why it ended; else "". "null client"
 * for NULL. Valid until the next call on the client.
 */
FOOTHOLD_CLIENT_API const char* foothold_client_last_error(const foothold_client* client);

/**
 * Why the session ended: a foothold_client_end (FOOTHOLD_CLIENT_END_NONE while it runs, before
 * connect, and for NULL). Stays until the next connect.
 */
FOOTHOLD_CLIENT_API int32_t foothold_client_end_reason(const foothold_client* client);

/** A foothold_client_end's name ("no_server", "timed_out", ...); "unknown" for another value. */
FOOTHOLD_CLIENT_API const char* foothold_client_end_name(int32_t reason);

/**
 * Starts connecting with a connect token's bytes (the file `foothold-token issue` writes). Once a
 * session has ended, the same client connects again with a new token; while one runs, ERROR_STATE.
 */
FOOTHOLD_CLIENT_API foothold_client_result foothold_client_connect(foothold_client* client, const uint8_t* token,
                                                                   size_t token_size);

/** foothold_client_connect() with the token read from a file. */
FOOTHOLD_CLIENT_API foothold_client_result foothold_client_connect_token_file(foothold_client* client, const char* path);

/**
 * Runs the client up to `now_seconds`, the application's monotonic clock in seconds (any origin,
 * never decreasing): receives what arrived, runs the fixed ticks that are due with the current input,
 * sends. Call it every frame. A clock that goes backwards is refused (ERROR_ARGUMENT); before the
 * first connect, ERROR_STATE (there is nothing to run). After a session ends it still succeeds, so
 * messages that arrived before the end can be read.
 */
FOOTHOLD_CLIENT_API foothold_client_result foothold_client_update(foothold_client* client, double now_seconds);

/**
 * The player's input now, for the ticks to come until set again: `move_x`, `move_z` are the wished
 * direction in world axes, each in [-1, 1] (longer vectors count as unit length; the ticks take the
 * latest); `buttons` are FOOTHOLD_CLIENT_BUTTON_* bits held now (others are ignored). Every press
 * counts: a button's changes are kept until ticks have used them, one tick each, so a press and
 * release inside one frame in which no tick runs still jumps once, and a press held across ticks
 * jumps once. Call it once a frame, before foothold_client_update(). Non-finite values are refused
 * (ERROR_ARGUMENT); before the first connect, ERROR_STATE.
 */
FOOTHOLD_CLIENT_API foothold_client_result foothold_client_set_input(foothold_client* client, double move_x, double move_z,
                                                                     uint32_t buttons);

/** The connection's status (FOOTHOLD_CLIENT_IDLE for NULL). */
FOOTHOLD_CLIENT_API foothold_client_status foothold_client_get_status(const foothold_client* client);

/** The predicted local character, at the newest predicted tick. ERROR_STATE before connected. */
FOOTHOLD_CLIENT_API foothold_client_result foothold_client_local_character(foothold_client* client,
                                                                           foothold_client_character* out);

/**
 * The other characters, interpolated in straight lines at the view tick (foothold_client_view_tick),
 * as the server's lag compensation reconstructs them, never carried on past the newest snapshot;
 * foothold_client_draw_remotes() is what to draw. Sorted by id. *count is how many there are; the first min(*count, capacity) are written
 * to `out` (so *count > capacity says the list was cut). `out` may be NULL when `capacity` is 0, to
 * learn the count. ERROR_STATE before connected.
 */
FOOTHOLD_CLIENT_API foothold_client_result foothold_client_remote_characters(foothold_client* client,
                                                                             foothold_client_character* out,
                                                                             size_t capacity, size_t* count);

/** What the connection has seen so far (zeros before connect). */
FOOTHOLD_CLIENT_API foothold_client_result foothold_client_get_stats(const foothold_client* client,
                                                                     foothold_client_stats* out);

/** The world's triangles, for drawing: the number of static triangles. 0 for NULL. */
FOOTHOLD_CLIENT_API size_t foothold_client_world_triangle_count(const foothold_client* client);

/**
 * Copies static triangles [first, first + count) of the world: 9 floats per triangle (three corners,
 * x y z, metres) into `vertices`, and when `tags` is not NULL each triangle's surface tag
 * (0: grounds by its slope, 1: always_ground, 2: never_ground). ERROR_ARGUMENT when the range is
 * outside the world.
 */
FOOTHOLD_CLIENT_API foothold_client_result foothold_client_world_triangles(const foothold_client* client, size_t first,
                                                                           size_t count, float* vertices,
                                                                           uint32_t* tags);

/** The number of triangles on movers (animated platforms); 0 for NULL or a world without movers. */
FOOTHOLD_CLIENT_API size_t foothold_client_mover_triangle_count(const foothold_client* client);

/**
 * Like foothold_client_world_triangles(), for the movers' triangles where they are at the newest
 * predicted tick (before connect: at tick 0). Call it every frame to draw moving platforms.
 */
FOOTHOLD_CLIENT_API foothold_client_result foothold_client_mover_triangles(foothold_client* client, size_t first,
                                                                           size_t count, float* vertices,
                                                                           uint32_t* tags);

/** The capsule's radius and standing and crouched heights in metres (the settings'). */
FOOTHOLD_CLIENT_API foothold_client_result foothold_client_capsule(const foothold_client* client, double* radius,
                                                                   double* height, double* crouch_height);

/**
 * Queues a message to the server, on `channel` (a foothold_client_channel): `size` bytes at `bytes`,
 * copied. It goes with the next ticks' inputs. ERROR_QUEUE_FULL when the queue (256 KiB of reliable
 * messages not yet acknowledged, 16 KiB of unreliable ones not yet sent) has no room now: nothing
 * was queued, send it again after an update. ERROR_ARGUMENT for an empty or too large message or an
 * unknown channel; ERROR_STATE when not connected.
 */
FOOTHOLD_CLIENT_API foothold_client_result foothold_client_send_message(foothold_client* client, int32_t channel,
                                                                        const void* bytes, size_t size);

/**
 * Takes the next message the server sent: copies it into `buffer` (`capacity` bytes), its size into
 * `*size` and its channel into `*channel` (may be NULL). When there is none: FOOTHOLD_CLIENT_OK with
 * `*size` 0. When `capacity` is too small: ERROR_ARGUMENT with `*size` the size needed, and the
 * message kept for the next call. Reliable messages come in the order sent. Allocates nothing.
 */
FOOTHOLD_CLIENT_API foothold_client_result foothold_client_receive_message(foothold_client* client, void* buffer,
                                                                           size_t capacity, size_t* size,
                                                                           int32_t* channel);

/**
 * The moment, in fractional server ticks, at which foothold_client_remote_characters draws the other
 * characters now (as of the last update): what a shot message carries, so that the server's game
 * judges it against the world as this client drew it (lag compensation). ERROR_STATE when not
 * connected. Allocates nothing.
 */
FOOTHOLD_CLIENT_API foothold_client_result foothold_client_view_tick(const foothold_client* client, double* tick);

/**
 * This client's own character as a game draws it at the time of the last foothold_client_update()
 * (the frame's): interpolated between the predicted ticks around that moment (or extrapolated, as
 * config.draw_extrapolate says), with any correction taken in smoothly (config.draw_smoothing_s,
 * at most 1.5 m/s, never through a wall) unless larger than config.draw_snap_m. Call once per frame,
 * after the update; `tick` in `out` is the whole tick drawn from. `error` (may be NULL) receives the
 * correction still being taken in (drawn minus predicted, metres): what a net graph shows.
 * ERROR_STATE when not connected. Allocates nothing.
 */
FOOTHOLD_CLIENT_API foothold_client_result foothold_client_draw_local(foothold_client* client, foothold_client_character* out,
                                                                      double error[3]);

/**
 * The other characters as a game draws them at the time of the last foothold_client_update(), sorted
 * by id: at the view tick (foothold_client_view_tick: behind the newest snapshot by a delay that
 * follows the jitter and loss measured, on a clock that never jumps), on a smooth curve through the
 * snapshots; carried on for at most config.draw_remote_extrapolate_s past the newest when the next
 * is late, then held; a wrong guess taken back smoothly as the own character's corrections are.
 * *count is how many there are; the first min(*count, capacity) are written to `out`. `tick` in
 * each is the whole view tick. Call once per frame, after the update (it keeps what it drew, to
 * take the next snapshot in smoothly). ERROR_STATE when not connected. Allocates nothing once as
 * many characters have been seen.
 */
FOOTHOLD_CLIENT_API foothold_client_result foothold_client_draw_remotes(foothold_client* client,
                                                                        foothold_client_character* out,
                                                                        size_t capacity, size_t* count);

/**
 * Takes the oldest change to the view not taken yet into `out`: kind FOOTHOLD_CLIENT_EVENT_NONE when
 * there is none. The server sends each client the characters of interest to it (the nearest, at
 * most 48), so characters appear and leave as players join and quit and as they come within and go
 * out of range; a leave says which. Events wait, in order, until taken (the oldest are dropped past
 * 1024: poll every frame); a new connection starts with none. The own player's client id is in
 * foothold_client_local_character's `client_id`. ERROR_STATE before the first connect. Allocates nothing.
 */
FOOTHOLD_CLIENT_API foothold_client_result foothold_client_poll_event(foothold_client* client, foothold_client_event* out);

/** Whose replicated attribute (foothold_client_attribute): the game's integers, declared by the server's game. */
typedef enum foothold_client_attribute_scope {
  FOOTHOLD_CLIENT_ATTRIBUTE_CHARACTER = 0, /**< this client's own character's (index 0 to 15) */
  FOOTHOLD_CLIENT_ATTRIBUTE_MATCH = 1,     /**< the match's (index 0 to 15) */
} foothold_client_attribute_scope;

/**
 * The replicated attribute `index` of `scope` (a foothold_client_attribute_scope) into `*value`: as
 * the newest snapshot that carried it left it, 0 until one did. ERROR_ARGUMENT for an unknown scope,
 * an index out of 0..15 or a null `value`; ERROR_STATE before connecting. Allocates nothing.
 */
FOOTHOLD_CLIENT_API foothold_client_result foothold_client_attribute(const foothold_client* client, int32_t scope,
                                                                     int32_t index, int32_t* value);

/**
 * Another character's replicated attribute `index` (of the CHARACTER scope) into `*value`: the last
 * value a snapshot carried of an attribute the game lets every client see (visibility `all`) while
 * `character` (an id from foothold_client_draw_remotes) stayed in this client's view; for this
 * client's own character, its attribute as foothold_client_attribute gives it. 0 when unknown: never
 * carried, an attribute of visibility `self`, or a character not in the view (its values are
 * forgotten when it leaves the view). ERROR_ARGUMENT for an index out of 0..15 or a null `value`;
 * ERROR_STATE before connecting. Allocates nothing.
 */
FOOTHOLD_CLIENT_API foothold_client_result foothold_client_character_attribute(const foothold_client* client,
                                                                               uint32_t character, int32_t index,
                                                                               int32_t* value);

/**
 * The index of the attribute of `scope` that the game named `name`, or -1 when it declared none by
 * that name (or before the server's accept, which brings the names).
 */
FOOTHOLD_CLIENT_API int32_t foothold_client_attribute_index(const foothold_client* client, int32_t scope,
                                                            const char* name);

/**
 * The name of attribute `index` of `scope`, or NULL when it has none. The string stays valid until
 * the client is destroyed or connects again.
 */
FOOTHOLD_CLIENT_API const char* foothold_client_attribute_name(const foothold_client* client, int32_t scope,
                                                               int32_t index);

/** Says goodbye to the server; the status becomes DISCONNECTED. Nothing to do when not connected. */
FOOTHOLD_CLIENT_API foothold_client_result foothold_client_disconnect(foothold_client* client);

#ifdef __cplusplus
}
#endif

#endif /* FOOTHOLD_CLIENT_H */
