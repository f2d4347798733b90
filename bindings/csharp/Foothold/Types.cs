// The enums and structs of client.h. The structs are blittable and laid out as the C compiler lays
// them out (tests/bindings/csharp checks every size and offset against it), so the marshaller pins
// or copies them as they are: nothing is converted or allocated per call.
using System;
using System.Runtime.InteropServices;

namespace Foothold
{
    /// <summary>What a call did (<c>foothold_client_result</c>). Any value but <see cref="Ok"/> leaves a message in
    /// <see cref="FootholdClient.LastError"/>.</summary>
    public enum Result
    {
        /// <summary>The call succeeded.</summary>
        Ok = 0,
        /// <summary>A null handle or array, a non-finite number, a value out of range.</summary>
        ErrorArgument = 1,
        /// <summary>The world could not be loaded.</summary>
        ErrorWorld = 2,
        /// <summary>The settings file could not be read or is invalid.</summary>
        ErrorSettings = 3,
        /// <summary>The connect token is unreadable, malformed, expired or not valid yet.</summary>
        ErrorToken = 4,
        /// <summary>No socket, or the server address is unusable.</summary>
        ErrorNetwork = 5,
        /// <summary>Not now: e.g. connecting twice, or reading a character before connecting.</summary>
        ErrorState = 6,
        /// <summary>Out of memory, or a bug: the message says which.</summary>
        ErrorInternal = 7,
        /// <summary>The message queue has no room now: send the message again after an update.</summary>
        ErrorQueueFull = 8,
    }

    /// <summary>The channel a message travels on (<c>foothold_client_channel</c>).</summary>
    public enum Channel
    {
        /// <summary>Delivered exactly once and in order, or the session ends; 1 byte to 64 KiB.</summary>
        Reliable = 0,
        /// <summary>Sent once: may be lost, never delivered twice or out of order; 1 byte to 1 KiB.</summary>
        Unreliable = 1,
    }

    /// <summary>Where the connection is (<c>foothold_client_status</c>).</summary>
    public enum Status
    {
        /// <summary>Created, not connecting yet.</summary>
        Idle = 0,
        /// <summary>Handshake under way.</summary>
        Connecting = 1,
        /// <summary>In a session: characters can be read.</summary>
        Connected = 2,
        /// <summary>The server refused (full, world or settings mismatch, ...): see <see cref="FootholdClient.LastError"/>.</summary>
        Rejected = 3,
        /// <summary>No answer to the handshake within the connect timeout.</summary>
        Failed = 4,
        /// <summary>The server went silent.</summary>
        TimedOut = 5,
        /// <summary>The client or the server ended the session.</summary>
        Disconnected = 6,
    }

    /// <summary>Why a session ended (<c>foothold_client_end</c>), for code; <see cref="FootholdClient.LastError"/> says it for people.</summary>
    public enum EndReason
    {
        /// <summary>Still running, or never started.</summary>
        None = 0,
        /// <summary><see cref="FootholdClient.Disconnect"/> was called.</summary>
        ClientQuit = 1,
        /// <summary>Nothing listens at the address (its port refused the connect request).</summary>
        NoServer = 2,
        /// <summary>No answer: no server there, a firewall, or a token it cannot open (sealed with another key).</summary>
        NoAnswer = 3,
        /// <summary>No answer, and the token has expired by this machine's clock: mint a new one.</summary>
        TokenExpired = 4,
        /// <summary>The server answered the request, then went silent before accepting.</summary>
        HandshakeTimeout = 5,
        /// <summary>Connected, then no word from the server for <see cref="ClientOptions.ServerTimeoutSeconds"/>.</summary>
        TimedOut = 6,
        /// <summary>The server speaks another protocol version: update one of them.</summary>
        VersionMismatch = 7,
        /// <summary>The server runs another world.</summary>
        WorldMismatch = 8,
        /// <summary>The server moves characters with other settings.</summary>
        SettingsMismatch = 9,
        /// <summary>The server, or the players from this address, are at their limit.</summary>
        ServerFull = 10,
        /// <summary>The server is shutting down.</summary>
        ServerShutdown = 11,
        /// <summary>The server's game removed the character.</summary>
        Kicked = 12,
        /// <summary>The same player connected again from this address.</summary>
        Replaced = 13,
        /// <summary>The token's client id is playing from another address.</summary>
        ClientIdInUse = 14,
        /// <summary>The token does not name the address the server was reached at.</summary>
        WrongServer = 15,
        /// <summary>Refused for another reason (<see cref="FootholdClient.LastError"/> has the server's message).</summary>
        Rejected = 16,
        /// <summary>The message layer broke (either side), or stood still.</summary>
        Messages = 17,
    }

    /// <summary>The ground a character stands on (<c>foothold_client_ground</c>).</summary>
    public enum Ground
    {
        /// <summary>Airborne.</summary>
        None = 0,
        /// <summary>A surface no steeper than the settings' max slope.</summary>
        Walkable = 1,
        /// <summary>A surface tagged always_ground.</summary>
        Tagged = 2,
        /// <summary>Wedged between two steep faces.</summary>
        Crevice = 3,
        /// <summary>Wedged between three steep faces.</summary>
        Pit = 4,
    }

    /// <summary>Input buttons held (<c>FOOTHOLD_CLIENT_BUTTON_*</c>), for <see cref="FootholdClient.SetInput"/>.</summary>
    [Flags]
    public enum Buttons : uint
    {
        /// <summary>No button.</summary>
        None = 0,
        /// <summary>Jump.</summary>
        Jump = 1,
        /// <summary>Crouch.</summary>
        Crouch = 2,
    }

    /// <summary>A change to which characters this client sees (<c>foothold_client_event_kind</c>).</summary>
    public enum EventKind
    {
        /// <summary>No event waiting.</summary>
        None = 0,
        /// <summary>A character came into view: a player who joined, or one now within range.</summary>
        Appeared = 1,
        /// <summary>It went out of range; its player is still in the match.</summary>
        LeftView = 2,
        /// <summary>Its player left the match (quit, timed out, removed by the game).</summary>
        LeftMatch = 3,
    }

    /// <summary>Whose replicated attribute (<c>foothold_client_attribute_scope</c>): the game's integers, declared by the server's game.</summary>
    public enum AttributeScope
    {
        /// <summary>This client's own character's (index 0 to 15).</summary>
        Character = 0,
        /// <summary>The match's (index 0 to 15).</summary>
        Match = 1,
    }

    /// <summary>Three doubles, as <c>double[3]</c> in C: a position (metres) or a velocity (metres per second), world axes, Y up.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct Vector3d
    {
        /// <summary>The X component.</summary>
        public double X;
        /// <summary>The Y component (up).</summary>
        public double Y;
        /// <summary>The Z component.</summary>
        public double Z;

        /// <summary>The vector's components.</summary>
        public Vector3d(double x, double y, double z)
        {
            X = x;
            Y = y;
            Z = z;
        }
    }

    /// <summary>A character, as the game draws it (<c>foothold_client_character</c>).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct Character
    {
        /// <summary>The server's character id.</summary>
        public uint Id;
        /// <summary>The capsule's centre, metres.</summary>
        public Vector3d Position;
        /// <summary>Metres per second (remote characters: from their last two snapshots).</summary>
        public Vector3d Velocity;
        /// <summary>The ground it stands on, a <see cref="Foothold.Ground"/> (an int, as in C; <see cref="GroundKind"/> is the enum).</summary>
        public int Ground;
        /// <summary>1 when crouched (the capsule is the settings' crouch_height tall).</summary>
        public int Crouched;
        /// <summary>The mover stood on, as index + 1; 0 for none.</summary>
        public uint Platform;
        /// <summary>Local: the predicted tick; remote: the newest snapshot tick it is drawn from.</summary>
        public uint Tick;
        /// <summary>The player's client id, from their connect token (the game's name for them).</summary>
        public ulong ClientId;

        /// <summary><see cref="Ground"/> as the enum.</summary>
        public Ground GroundKind { get { return (Ground)Ground; } }
    }

    /// <summary>One change to the view, naming the character and its player (<c>foothold_client_event</c>).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct ClientEvent
    {
        /// <summary>An <see cref="EventKind"/> (an int, as in C; <see cref="KindOf"/> is the enum).</summary>
        public int Kind;
        /// <summary>The server's character id (as in <see cref="Character.Id"/>).</summary>
        public uint CharacterId;
        /// <summary>Its player's client id, from their connect token (0 for an NPC).</summary>
        public ulong ClientId;
        /// <summary>The snapshot that showed the change.</summary>
        public uint Tick;
        /// <summary>1: a character the server's game drives (an NPC, no player); 0: a player's.</summary>
        public int Npc;

        /// <summary><see cref="Kind"/> as the enum.</summary>
        public EventKind KindOf { get { return (EventKind)Kind; } }
        /// <summary>Whether it is an NPC (<see cref="Npc"/> is 1).</summary>
        public bool IsNpc { get { return Npc != 0; } }
    }

    /// <summary>What the connection has seen (<c>foothold_client_stats</c>). Counters are totals since connect.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct Stats
    {
        /// <summary>The struct's size in C, set by <see cref="FootholdClient.GetStats"/>.</summary>
        public uint StructSize;
        /// <summary>The latest round trip in milliseconds (the network's, not the frame loop's); -1 before the first.</summary>
        public double RttMs;
        /// <summary>The round trip, smoothed (1/8 per sample); -1 before the first.</summary>
        public double RttMsSmoothed;
        /// <summary>Milliseconds from the first update after connect to the one that took the server's accept; -1 until connected.</summary>
        public double ConnectMs;
        /// <summary>Ticks predicted.</summary>
        public ulong Ticks;
        /// <summary>Snapshots used.</summary>
        public ulong Snapshots;
        /// <summary>Predictions the server corrected, of every kind below and <see cref="CorrectionsServer"/>.</summary>
        public ulong Corrections;
        /// <summary>... because the server had to use another input (late or lost packets).</summary>
        public ulong CorrectionsInput;
        /// <summary>... because another character moved otherwise than predicted.</summary>
        public ulong CorrectionsInteraction;
        /// <summary>... with neither cause: a determinism bug, please report.</summary>
        public ulong CorrectionsUnexplained;
        /// <summary>Datagrams received.</summary>
        public ulong PacketsIn;
        /// <summary>Datagrams sent.</summary>
        public ulong PacketsOut;
        /// <summary>UDP payload bytes received.</summary>
        public ulong BytesIn;
        /// <summary>UDP payload bytes sent.</summary>
        public ulong BytesOut;
        /// <summary>How early our inputs reach the server, in ticks (the input buffer).</summary>
        public int InputLeadTicks;
        /// <summary>The newest snapshot's tick.</summary>
        public uint ServerTick;
        /// <summary>Remote characters being interpolated.</summary>
        public uint RemoteCount;
        /// <summary>Messages queued by <see cref="FootholdClient.SendMessage(Channel, byte[], int, int)"/>, both channels.</summary>
        public ulong MessagesSent;
        /// <summary>Messages handed over by <see cref="FootholdClient.ReceiveMessage"/>.</summary>
        public ulong MessagesReceived;
        /// <summary>Bytes of the message sections sent.</summary>
        public ulong MessageBytesOut;
        /// <summary>Bytes of the message sections received.</summary>
        public ulong MessageBytesIn;
        /// <summary>Reliable fragments sent again.</summary>
        public ulong MessageRetransmissions;
        /// <summary>The round trip the message acknowledgements measured, milliseconds; -1 before the first.</summary>
        public double MessageRttMs;
        /// <summary>Corrections because the server's game moved or changed the character (a teleport, a launch, a freeze, a movement profile).</summary>
        public ulong CorrectionsServer;
    }

    /// <summary>
    /// <c>foothold_client_config</c> as C lays it out; <see cref="ClientOptions"/> is what C# code fills, and
    /// <see cref="FootholdClient"/> copies it here with the strings as pointers to UTF-8 it holds for the call.
    /// </summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct NativeConfig
    {
        internal uint StructSize;
        internal IntPtr World;
        internal IntPtr SettingsFile;
        internal IntPtr Server;
        internal double ConnectTimeoutS;
        internal double ServerTimeoutS;
        internal uint MessageQueueBytes;
        internal uint MessageRate;
        internal uint MessageCopies;
        internal int DrawExtrapolate;
        internal double DrawSmoothingS;
        internal double DrawSnapM;
        internal double DrawRemoteExtrapolateS;
        internal double ConditionLoss;
        internal double ConditionDuplicate;
        internal double ConditionReorder;
        internal double ConditionLatencyMs;
        internal double ConditionJitterMs;
    }
}
