// The idiomatic layer: a client that owns its native handle, exceptions where C# code expects them
// (creating, connecting), and plain Result returns on the per-frame calls, which write into what
// the caller owns (out structs, arrays sized once) so that a frame allocates nothing managed.
using System;
using System.Runtime.InteropServices;

namespace Foothold
{
    /// <summary>A failure to create or connect a client: <see cref="Result"/> says which kind, the message why.</summary>
    public class FootholdException : Exception
    {
        /// <summary>What the C call returned.</summary>
        public Result Result { get; private set; }

        /// <summary>An exception for <paramref name="result"/> with the library's <paramref name="message"/>.</summary>
        public FootholdException(Result result, string message) : base(message)
        {
            Result = result;
        }
    }

    /// <summary>
    /// What to create a client with (<c>foothold_client_config</c>). A new instance holds the library's
    /// defaults (from <c>foothold_client_config_init</c>); set what differs.
    /// </summary>
    public sealed class ClientOptions
    {
        /// <summary>"arena" (the embedded world) or an .obj, .gltf or .glb path: the server's world.</summary>
        public string World;
        /// <summary>A movement settings TOML file (the server's), or null for the defaults.</summary>
        public string SettingsFile;
        /// <summary>"HOST:PORT" to send to, or null for the token's first address.</summary>
        public string Server;
        /// <summary>Give up the handshake after this many seconds (default 5).</summary>
        public double ConnectTimeoutSeconds;
        /// <summary>End a session the server is silent in for this many seconds (default 10).</summary>
        public double ServerTimeoutSeconds;
        /// <summary>Reliable message bytes queued and unacknowledged at most (default 262144, 65536..16777216).</summary>
        public uint MessageQueueBytes;
        /// <summary>Message bytes per second sent at most (default 65536, 1024..10000000).</summary>
        public uint MessageRate;
        /// <summary>Times each reliable message goes before waiting for its acknowledgement (default 1, 1..4).</summary>
        public uint MessageCopies;
        /// <summary>How <see cref="FootholdClient.DrawLocal(out Character)"/> draws: false (default) interpolates a tick behind
        /// the newest prediction, true carries the newest on by its velocity.</summary>
        public bool DrawExtrapolate;
        /// <summary>A correction is taken in with this time constant, seconds (default 0.1, 0..2; 0: at once).</summary>
        public double DrawSmoothingSeconds;
        /// <summary>A correction larger than this many metres snaps (default 2, 0.01..100).</summary>
        public double DrawSnapMetres;
        /// <summary>Seconds another character is carried on past its newest snapshot when the next is late (default 0.1, 0..1).</summary>
        public double DrawRemoteExtrapolateSeconds;
        /// <summary>Network conditioner, for testing on a bad network: probability each datagram is lost (0..1; 0: off).</summary>
        public double ConditionLoss;
        /// <summary>Network conditioner: probability each datagram arrives twice (0..1).</summary>
        public double ConditionDuplicate;
        /// <summary>Network conditioner: probability each datagram is held back behind later ones (0..1).</summary>
        public double ConditionReorder;
        /// <summary>Network conditioner: one-way delay in milliseconds (0..10000).</summary>
        public double ConditionLatencyMs;
        /// <summary>Network conditioner: the delay varies by +- this many milliseconds (0..10000).</summary>
        public double ConditionJitterMs;

        /// <summary>The library's defaults.</summary>
        public ClientOptions()
        {
            var config = new NativeConfig();
            Native.foothold_client_config_init(ref config);
            World = Utf8.FromNative(config.World);
            SettingsFile = Utf8.FromNative(config.SettingsFile);
            Server = Utf8.FromNative(config.Server);
            ConnectTimeoutSeconds = config.ConnectTimeoutS;
            ServerTimeoutSeconds = config.ServerTimeoutS;
            MessageQueueBytes = config.MessageQueueBytes;
            MessageRate = config.MessageRate;
            MessageCopies = config.MessageCopies;
            DrawExtrapolate = config.DrawExtrapolate != 0;
            DrawSmoothingSeconds = config.DrawSmoothingS;
            DrawSnapMetres = config.DrawSnapM;
            DrawRemoteExtrapolateSeconds = config.DrawRemoteExtrapolateS;
            ConditionLoss = config.ConditionLoss;
            ConditionDuplicate = config.ConditionDuplicate;
            ConditionReorder = config.ConditionReorder;
            ConditionLatencyMs = config.ConditionLatencyMs;
            ConditionJitterMs = config.ConditionJitterMs;
        }
    }

    /// <summary>
    /// A client: one connection to one Foothold server (<c>foothold_client*</c>). Create it, connect it with a
    /// token, then every frame: <see cref="SetInput"/>, <see cref="Update"/>, <see cref="DrawLocal(out Character)"/>,
    /// <see cref="DrawRemotes"/>, <see cref="PollEvent"/>, <see cref="ReceiveMessage"/>. Not thread-safe: use
    /// each client from one thread at a time. The per-frame calls allocate nothing, managed or native.
    /// </summary>
    public sealed class FootholdClient : IDisposable
    {
        private readonly ClientHandle handle_;

        /// <summary>The library's version, "MAJOR.MINOR.PATCH".</summary>
        public static string Version { get { return Utf8.FromNative(Native.foothold_client_version()); } }

        /// <summary>A <see cref="EndReason"/>'s name ("no_server", "timed_out", ...); "unknown" for another value.</summary>
        public static string EndName(EndReason reason)
        {
            return Utf8.FromNative(Native.foothold_client_end_name((int)reason));
        }

        /// <summary>A client with the library's defaults (the "arena" world).</summary>
        /// <exception cref="FootholdException">The world could not be loaded, or no socket.</exception>
        public FootholdClient() : this(new ClientOptions()) { }

        /// <summary>Loads the world and settings and opens a UDP socket.</summary>
        /// <exception cref="ArgumentNullException"><paramref name="options"/> is null.</exception>
        /// <exception cref="FootholdException">An option is out of range, the world or settings could not be loaded,
        /// the server address is unusable, or no socket.</exception>
        public FootholdClient(ClientOptions options)
        {
            if (options == null) throw new ArgumentNullException("options");
            var config = new NativeConfig();
            Native.foothold_client_config_init(ref config);
            config.ConnectTimeoutS = options.ConnectTimeoutSeconds;
            config.ServerTimeoutS = options.ServerTimeoutSeconds;
            config.MessageQueueBytes = options.MessageQueueBytes;
            config.MessageRate = options.MessageRate;
            config.MessageCopies = options.MessageCopies;
            config.DrawExtrapolate = options.DrawExtrapolate ? 1 : 0;
            config.DrawSmoothingS = options.DrawSmoothingSeconds;
            config.DrawSnapM = options.DrawSnapMetres;
            config.DrawRemoteExtrapolateS = options.DrawRemoteExtrapolateSeconds;
            config.ConditionLoss = options.ConditionLoss;
            config.ConditionDuplicate = options.ConditionDuplicate;
            config.ConditionReorder = options.ConditionReorder;
            config.ConditionLatencyMs = options.ConditionLatencyMs;
            config.ConditionJitterMs = options.ConditionJitterMs;
            // The strings are only read during create (the world and server are copied, the settings
            // file read), so pinning them for the call is enough.
            var world = GCHandle.Alloc(Utf8.ToNative(options.World ?? "arena"), GCHandleType.Pinned);
            var settings = GCHandle.Alloc(Utf8.ToNative(options.SettingsFile), GCHandleType.Pinned);
            var server = GCHandle.Alloc(Utf8.ToNative(options.Server), GCHandleType.Pinned);
            var error = new byte[512];
            Result result;
            ClientHandle created;
            try
            {
                config.World = world.AddrOfPinnedObject();
                config.SettingsFile = options.SettingsFile == null ? IntPtr.Zero : settings.AddrOfPinnedObject();
                config.Server = options.Server == null ? IntPtr.Zero : server.AddrOfPinnedObject();
                result = Native.foothold_client_create(ref config, out created, error, (UIntPtr)error.Length);
            }
            finally
            {
                world.Free();
                settings.Free();
                server.Free();
            }
            if (result != Result.Ok || created == null || created.IsInvalid)
            {
                int length = Array.IndexOf(error, (byte)0);
                throw new FootholdException(result, System.Text.Encoding.UTF8.GetString(error, 0, length < 0 ? error.Length : length));
            }
            handle_ = created;
        }

        /// <summary>Says goodbye to the server if connected, closes the socket and frees the native client.</summary>
        public void Dispose()
        {
            handle_.Dispose();
        }

        /// <summary>
        /// The message of the last failed call; when the last call did not fail and the session has ended, why it
        /// ended; else "". Allocates a string: for errors, not for every frame.
        /// </summary>
        public string LastError { get { return Utf8.FromNative(Native.foothold_client_last_error(handle_)); } }

        /// <summary>Why the session ended (<see cref="Foothold.EndReason.None"/> while it runs and before connect). Stays until the next connect.</summary>
        public EndReason EndReason { get { return (EndReason)Native.foothold_client_end_reason(handle_); } }

        /// <summary>The connection's status.</summary>
        public Status Status { get { return Native.foothold_client_get_status(handle_); } }

        /// <summary>
        /// Starts connecting with a connect token's bytes (the file <c>foothold-token issue</c> writes). Once a
        /// session has ended, the same client connects again with a new token.
        /// </summary>
        /// <exception cref="ArgumentNullException"><paramref name="token"/> is null.</exception>
        /// <exception cref="FootholdException">The token is malformed or expired, a session is running, or the address is unusable.</exception>
        public void Connect(byte[] token)
        {
            if (token == null) throw new ArgumentNullException("token");
            Check(Native.foothold_client_connect(handle_, token, (UIntPtr)token.Length));
        }

        /// <summary><see cref="Connect"/> with the token read from a file.</summary>
        /// <exception cref="ArgumentNullException"><paramref name="path"/> is null.</exception>
        /// <exception cref="FootholdException">The file is unreadable or its token malformed or expired, or a session is running.</exception>
        public void ConnectTokenFile(string path)
        {
            if (path == null) throw new ArgumentNullException("path");
            Check(Native.foothold_client_connect_token_file(handle_, Utf8.ToNative(path)));
        }

        /// <summary>
        /// Runs the client up to <paramref name="nowSeconds"/>, the application's monotonic clock (any origin, never
        /// decreasing): receives, runs the fixed ticks that are due, sends. Call it every frame.
        /// </summary>
        /// <returns><see cref="Result.ErrorArgument"/> for a clock that went backwards, <see cref="Result.ErrorState"/>
        /// before the first connect.</returns>
        public Result Update(double nowSeconds)
        {
            return Native.foothold_client_update(handle_, nowSeconds);
        }

        /// <summary>
        /// The player's input for the ticks to come: the wished direction in world axes, each in [-1, 1], and the
        /// buttons held now (every press counts, even one released within a frame). Call it before <see cref="Update"/>.
        /// </summary>
        /// <returns><see cref="Result.ErrorArgument"/> for non-finite values, <see cref="Result.ErrorState"/> before the first connect.</returns>
        public Result SetInput(double moveX, double moveZ, Buttons buttons)
        {
            return Native.foothold_client_set_input(handle_, moveX, moveZ, (uint)buttons);
        }

        /// <summary>The predicted local character at the newest predicted tick.</summary>
        /// <returns><see cref="Result.ErrorState"/> before connected.</returns>
        public Result LocalCharacter(out Character character)
        {
            return Native.foothold_client_local_character(handle_, out character);
        }

        /// <summary>
        /// The other characters at the view tick, in straight lines, as the server's lag compensation sees them
        /// (<see cref="DrawRemotes"/> is what to draw), sorted by id. The first min(count, characters.Length) are
        /// written; <paramref name="count"/> greater than the array's length says it was cut. A null array learns the count.
        /// </summary>
        /// <returns><see cref="Result.ErrorState"/> before connected.</returns>
        public Result RemoteCharacters(Character[] characters, out int count)
        {
            UIntPtr n;
            var result = Native.foothold_client_remote_characters(handle_, characters, Capacity(characters), out n);
            count = (int)n.ToUInt64();
            return result;
        }

        /// <summary>
        /// This client's own character as a game draws it at the time of the last <see cref="Update"/>: between
        /// the predicted ticks, corrections taken in smoothly. Call once per frame, after the update.
        /// </summary>
        /// <returns><see cref="Result.ErrorState"/> when not connected.</returns>
        public Result DrawLocal(out Character character)
        {
            Vector3d correction;
            return Native.foothold_client_draw_local(handle_, out character, out correction);
        }

        /// <summary>
        /// <see cref="DrawLocal(out Character)"/>, and the correction still being taken in (drawn minus predicted,
        /// metres): what a net graph shows.
        /// </summary>
        /// <returns><see cref="Result.ErrorState"/> when not connected.</returns>
        public Result DrawLocal(out Character character, out Vector3d correction)
        {
            return Native.foothold_client_draw_local(handle_, out character, out correction);
        }

        /// <summary>
        /// The other characters as a game draws them at the time of the last <see cref="Update"/>, sorted by id.
        /// The first min(count, characters.Length) are written. Call once per frame, after the update.
        /// </summary>
        /// <returns><see cref="Result.ErrorState"/> when not connected.</returns>
        public Result DrawRemotes(Character[] characters, out int count)
        {
            UIntPtr n;
            var result = Native.foothold_client_draw_remotes(handle_, characters, Capacity(characters), out n);
            count = (int)n.ToUInt64();
            return result;
        }

        /// <summary>
        /// Takes the oldest change to the view not taken yet; its kind is <see cref="EventKind.None"/> when there
        /// is none. Poll until then every frame (past 1024 the oldest are dropped).
        /// </summary>
        /// <returns><see cref="Result.ErrorState"/> before the first connect.</returns>
        public Result PollEvent(out ClientEvent clientEvent)
        {
            return Native.foothold_client_poll_event(handle_, out clientEvent);
        }

        /// <summary>What the connection has seen so far (zeros before connect).</summary>
        public Result GetStats(out Stats stats)
        {
            return Native.foothold_client_get_stats(handle_, out stats);
        }

        /// <summary>
        /// Queues <paramref name="count"/> bytes of <paramref name="bytes"/> from <paramref name="offset"/> (copied)
        /// to the server on <paramref name="channel"/>; they go with the next ticks' inputs.
        /// </summary>
        /// <returns><see cref="Result.ErrorQueueFull"/> when the queue has no room now (send it again after an update);
        /// <see cref="Result.ErrorArgument"/> for an empty or too large message or a range outside the array;
        /// <see cref="Result.ErrorState"/> when not connected.</returns>
        public Result SendMessage(Channel channel, byte[] bytes, int offset, int count)
        {
            if (bytes == null || offset < 0 || count <= 0 || offset > bytes.Length - count) return Result.ErrorArgument;
            if (offset == 0) return Native.foothold_client_send_message(handle_, (int)channel, bytes, (UIntPtr)count);
            // A pinned GCHandle is a handle-table entry, not a managed object: nothing for the GC.
            var pinned = GCHandle.Alloc(bytes, GCHandleType.Pinned);
            try
            {
                var at = new IntPtr(pinned.AddrOfPinnedObject().ToInt64() + offset);
                return Native.foothold_client_send_message_at(handle_, (int)channel, at, (UIntPtr)count);
            }
            finally
            {
                pinned.Free();
            }
        }

        /// <summary>Queues the whole of <paramref name="bytes"/>: <see cref="SendMessage(Channel, byte[], int, int)"/>.</summary>
        /// <returns>As <see cref="SendMessage(Channel, byte[], int, int)"/>.</returns>
        public Result SendMessage(Channel channel, byte[] bytes)
        {
            return SendMessage(channel, bytes, 0, bytes == null ? 0 : bytes.Length);
        }

        /// <summary>
        /// Takes the next message the server sent into <paramref name="buffer"/>: its length in
        /// <paramref name="size"/> (0 when there is none) and its channel. Reliable messages come in the order sent.
        /// </summary>
        /// <returns><see cref="Result.ErrorArgument"/> when <paramref name="buffer"/> is too small: then
        /// <paramref name="size"/> is the size needed, and the message is kept for the next call.</returns>
        public Result ReceiveMessage(byte[] buffer, out int size, out Channel channel)
        {
            UIntPtr n;
            int c;
            var result = Native.foothold_client_receive_message(handle_, buffer, Capacity(buffer), out n, out c);
            size = (int)n.ToUInt64();
            channel = (Channel)c;
            return result;
        }

        /// <summary>
        /// The moment, in fractional server ticks, at which the other characters are drawn now (as of the last
        /// update): what a shot message carries, for the server's lag compensation.
        /// </summary>
        /// <returns><see cref="Result.ErrorState"/> when not connected.</returns>
        public Result ViewTick(out double tick)
        {
            return Native.foothold_client_view_tick(handle_, out tick);
        }

        /// <summary>
        /// The replicated attribute <paramref name="index"/> of <paramref name="scope"/>, as the newest snapshot that
        /// carried it left it (0 until one did).
        /// </summary>
        /// <returns><see cref="Result.ErrorArgument"/> for an index out of 0..15, <see cref="Result.ErrorState"/> before connecting.</returns>
        public Result Attribute(AttributeScope scope, int index, out int value)
        {
            return Native.foothold_client_attribute(handle_, (int)scope, index, out value);
        }

        /// <summary>
        /// Character <paramref name="character"/>'s attribute <paramref name="index"/> (of the character scope): the
        /// last value a snapshot carried of one the game lets every client see while the character stayed in this
        /// client's view; this client's own character's as <see cref="Attribute"/> gives it. 0 when unknown.
        /// </summary>
        /// <returns><see cref="Result.ErrorArgument"/> for an index out of 0..15, <see cref="Result.ErrorState"/> before connecting.</returns>
        public Result CharacterAttribute(uint character, int index, out int value)
        {
            return Native.foothold_client_character_attribute(handle_, character, index, out value);
        }

        /// <summary>
        /// The index of the attribute of <paramref name="scope"/> the game named <paramref name="name"/>, or -1 when
        /// it declared none by that name (or before the server's accept, which brings the names). Allocates the
        /// name's UTF-8: look indices up once after connecting, not every frame.
        /// </summary>
        public int AttributeIndex(AttributeScope scope, string name)
        {
            if (name == null) return -1;
            return Native.foothold_client_attribute_index(handle_, (int)scope, Utf8.ToNative(name));
        }

        /// <summary>The name of attribute <paramref name="index"/> of <paramref name="scope"/>, or null when it has none.</summary>
        public string AttributeName(AttributeScope scope, int index)
        {
            return Utf8.FromNative(Native.foothold_client_attribute_name(handle_, (int)scope, index));
        }

        /// <summary>The number of static triangles of the world, for drawing it.</summary>
        public int WorldTriangleCount { get { return (int)Native.foothold_client_world_triangle_count(handle_).ToUInt64(); } }

        /// <summary>
        /// Copies static triangles [first, first + count): 9 floats each (three corners, x y z, metres) into
        /// <paramref name="vertices"/>, and when <paramref name="tags"/> is not null each one's surface tag
        /// (0: grounds by its slope, 1: always_ground, 2: never_ground).
        /// </summary>
        /// <returns><see cref="Result.ErrorArgument"/> when the range is outside the world or the arrays are too short.</returns>
        public Result WorldTriangles(int first, int count, float[] vertices, uint[] tags)
        {
            if (!Fits(first, count, vertices, tags)) return Result.ErrorArgument;
            return Native.foothold_client_world_triangles(handle_, (UIntPtr)first, (UIntPtr)count, vertices, tags);
        }

        /// <summary>The number of triangles on movers (animated platforms); 0 for a world without movers.</summary>
        public int MoverTriangleCount { get { return (int)Native.foothold_client_mover_triangle_count(handle_).ToUInt64(); } }

        /// <summary>
        /// Like <see cref="WorldTriangles"/>, for the movers' triangles where they are at the newest predicted tick.
        /// Call it every frame to draw moving platforms.
        /// </summary>
        /// <returns><see cref="Result.ErrorArgument"/> when the range is outside the movers or the arrays are too short.</returns>
        public Result MoverTriangles(int first, int count, float[] vertices, uint[] tags)
        {
            if (!Fits(first, count, vertices, tags)) return Result.ErrorArgument;
            return Native.foothold_client_mover_triangles(handle_, (UIntPtr)first, (UIntPtr)count, vertices, tags);
        }

        /// <summary>The capsule's radius and standing and crouched heights in metres (the settings').</summary>
        public Result Capsule(out double radius, out double height, out double crouchHeight)
        {
            return Native.foothold_client_capsule(handle_, out radius, out height, out crouchHeight);
        }

        /// <summary>Says goodbye to the server; the status becomes <see cref="Foothold.Status.Disconnected"/>.</summary>
        public Result Disconnect()
        {
            return Native.foothold_client_disconnect(handle_);
        }

        private void Check(Result result)
        {
            if (result != Result.Ok) throw new FootholdException(result, LastError);
        }

        private static UIntPtr Capacity(Array array)
        {
            return (UIntPtr)(array == null ? 0 : array.Length);
        }

        // The C call trusts its arrays' lengths; C# checks them here so a short array cannot be overrun.
        private static bool Fits(int first, int count, float[] vertices, uint[] tags)
        {
            if (first < 0 || count < 0 || vertices == null) return false;
            if ((long)vertices.Length < 9L * count) return false;
            return tags == null || tags.Length >= count;
        }
    }
}
