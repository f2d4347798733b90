// The C# binding's checks, one per command; tests/bindings/csharp/csharp_test.sh runs them against
// real foothold-servers on loopback. Each prints what it saw and exits 0, or prints
// "csharp_test: FAILED: ..." and exits 1; 2 for bad usage.
//
//   mono tests.exe errors                    (no server) exceptions where C# code expects them
//   mono tests.exe layout LAYOUT_TXT         the C compiler's sizeof/offsetof (layout.c) against Marshal's
//   mono tests.exe entrypoints SO_EXPORTS [DLL_EXPORTS]
//                                            every P/Invoke name against the libraries' export lists
//   mono tests.exe echo TOKEN                100 reliable messages round trip byte for byte (--game echo)
//   mono tests.exe tag TOKEN                 attributes read by name (--game tag)
//   mono tests.exe events TOKEN              another client (a foothold-bot) appears and leaves the match
//   mono tests.exe disconnect TOKEN NO_SERVER_TOKEN
//                                            end reasons: client_quit, and no_server for a closed port
//   mono tests.exe allocation TOKEN          2,000 frames of every per-frame call: no GC, no heap growth
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Threading;
using Foothold;

class CheckFailed : Exception
{
    public CheckFailed(string message) : base(message) { }
}

static class Tests
{
    static readonly Stopwatch clock_ = Stopwatch.StartNew();

    static double Now() { return clock_.Elapsed.TotalSeconds; }

    static void Check(bool condition, string what)
    {
        if (!condition) throw new CheckFailed(what);
    }

    static int Main(string[] args)
    {
        var usage = "usage: mono tests.exe errors | layout LAYOUT_TXT | entrypoints SO_EXPORTS [DLL_EXPORTS] | echo TOKEN | " +
                    "tag TOKEN | events TOKEN | disconnect TOKEN NO_SERVER_TOKEN | allocation TOKEN";
        if (args.Length == 0)
        {
            Console.Error.WriteLine(usage);
            return 2;
        }
        var rest = args.Skip(1).ToArray();
        try
        {
            switch (args[0] + "/" + rest.Length)
            {
                case "errors/0": Errors(); break;
                case "layout/1": Layout(rest[0]); break;
                case "entrypoints/1": EntryPoints(rest[0], null); break;
                case "entrypoints/2": EntryPoints(rest[0], rest[1]); break;
                case "echo/1": Echo(rest[0]); break;
                case "tag/1": Tag(rest[0]); break;
                case "events/1": Events(rest[0]); break;
                case "disconnect/2": Disconnect(rest[0], rest[1]); break;
                case "allocation/1": Allocation(rest[0]); break;
                default:
                    Console.Error.WriteLine(usage);
                    return 2;
            }
        }
        catch (Exception e)
        {
            Console.Error.WriteLine("csharp_test: FAILED: {0}: {1}", args[0], e is CheckFailed ? e.Message : e.ToString());
            return 1;
        }
        return 0;
    }

    // A connected client (frames of 1/60 s until the server accepts, at most 10 s).
    static FootholdClient Connect(string token)
    {
        var client = new FootholdClient();
        client.ConnectTokenFile(token);
        double start = Now();
        while (client.Status != Status.Connected)
        {
            Check(client.Status <= Status.Connected, "connect: " + client.Status + ": " + client.LastError);
            Check(Now() - start < 10, "not connected after 10 s");
            Frame(client, 0, 0);
        }
        return client;
    }

    static void Frame(FootholdClient client, double x, double z)
    {
        client.SetInput(x, z, Buttons.None);
        var result = client.Update(Now());
        Check(result == Result.Ok, "update: " + result + ": " + client.LastError);
        Thread.Sleep(16);
    }

    static void Errors()
    {
        Check(FootholdClient.Version == "0.1.0" || FootholdClient.Version.Split('.').Length == 3,
              "version " + FootholdClient.Version + " is not MAJOR.MINOR.PATCH");
        var defaults = new ClientOptions();
        Check(defaults.World == "arena" && defaults.SettingsFile == null && defaults.Server == null,
              "the defaults name the arena and no settings or server");
        Check(defaults.ConnectTimeoutSeconds == 5 && defaults.MessageQueueBytes == 262144 && defaults.MessageCopies == 1,
              "the defaults are config_init's");
        Expect(Result.ErrorWorld, () => new FootholdClient(new ClientOptions { World = "/nonexistent/level.obj" }).Dispose());
        Expect(Result.ErrorArgument, () => new FootholdClient(new ClientOptions { MessageCopies = 9 }).Dispose());
        Expect(Result.ErrorSettings, () => new FootholdClient(new ClientOptions { SettingsFile = "/nonexistent.toml" }).Dispose());
        Expect(Result.ErrorNetwork, () => new FootholdClient(new ClientOptions { Server = "not an address" }).Dispose());
        using (var client = new FootholdClient())
        {
            Expect(Result.ErrorToken, () => client.ConnectTokenFile("/nonexistent.token"));
            Expect(Result.ErrorToken, () => client.Connect(new byte[] { 1, 2, 3 }));
            Check(client.Status == Status.Idle, "idle after failed connects");
            Check(client.Update(1) == Result.ErrorState, "update before connect is ErrorState");
            Character me;
            Check(client.LocalCharacter(out me) == Result.ErrorState, "a character before connect is ErrorState");
            Check(client.WorldTriangleCount > 0, "the arena has triangles");
            var vertices = new float[9 * 4];
            var tags = new uint[4];
            Check(client.WorldTriangles(0, 4, vertices, tags) == Result.Ok && vertices.Any(v => v != 0), "world triangles copied");
            Check(client.WorldTriangles(0, 5, vertices, tags) == Result.ErrorArgument, "a short array is refused, not overrun");
            Check(client.WorldTriangles(client.WorldTriangleCount, 1, vertices, null) == Result.ErrorArgument, "a range past the world is refused");
            double radius, height, crouch;
            Check(client.Capsule(out radius, out height, out crouch) == Result.Ok && radius > 0 && height > crouch, "the capsule");
            Check(FootholdClient.EndName(EndReason.NoServer) == "no_server" && FootholdClient.EndName((EndReason)99) == "unknown",
                  "end names");
        }
        Console.WriteLine("errors: create and connect throw FootholdException with the C result; per-frame calls return it");
    }

    static void Expect(Result expected, Action action)
    {
        try
        {
            action();
        }
        catch (FootholdException e)
        {
            Check(e.Result == expected, "expected " + expected + ", got " + e.Result + ": " + e.Message);
            Check(e.Message.Length > 0, expected + " has no message");
            return;
        }
        throw new CheckFailed("expected a FootholdException " + expected + ", none thrown");
    }

    // C names to the binding's: foothold_client_character -> Character, client_id -> ClientId.
    static readonly Dictionary<string, Type> structs_ = new Dictionary<string, Type>
    {
        { "foothold_client_config", typeof(FootholdClient).Assembly.GetType("Foothold.NativeConfig", true) },
        { "foothold_client_character", typeof(Character) },
        { "foothold_client_event", typeof(ClientEvent) },
        { "foothold_client_stats", typeof(Stats) },
    };

    static string Pascal(string snake)
    {
        return string.Concat(snake.Split('_').Select(w => char.ToUpperInvariant(w[0]) + w.Substring(1)));
    }

    static void Layout(string path)
    {
        var fields = new Dictionary<string, int>();
        int checkedFields = 0;
        foreach (var line in File.ReadAllLines(path))
        {
            var parts = line.Split(' ');
            Check(parts.Length == 3, "layout line '" + line + "'");
            Type type;
            Check(structs_.TryGetValue(parts[0], out type), parts[0] + " has no C# struct in the binding");
            long value = long.Parse(parts[2], CultureInfo.InvariantCulture);
            if (parts[1] == "size")
            {
                Check(Marshal.SizeOf(type) == value, parts[0] + ": sizeof " + value + " in C, Marshal.SizeOf(" + type.Name + ") " + Marshal.SizeOf(type));
                continue;
            }
            var name = Pascal(parts[1]);
            var field = type.GetField(name, BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance);
            Check(field != null, parts[0] + "." + parts[1] + " has no field " + type.Name + "." + name);
            long offset = Marshal.OffsetOf(type, name).ToInt64();
            Check(offset == value, parts[0] + "." + parts[1] + ": offsetof " + value + " in C, " + offset + " in C#");
            int count;
            fields.TryGetValue(parts[0], out count);
            fields[parts[0]] = count + 1;
            ++checkedFields;
        }
        foreach (var pair in structs_)
        {
            int inC;
            Check(fields.TryGetValue(pair.Key, out inC), pair.Key + " is not in the layout list");
            int inCs = pair.Value.GetFields(BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance).Length;
            Check(inC == inCs, pair.Key + " has " + inC + " fields in C, " + pair.Value.Name + " " + inCs);
            Check(IsBlittable(pair.Value), pair.Value.Name + " is not blittable");
        }
        Console.WriteLine("layout: {0} structs, {1} fields: sizes and offsets match the C compiler's", structs_.Count, checkedFields);
    }

    // Blittable: pinning it succeeds (the runtime refuses to pin anything the marshaller would convert).
    static bool IsBlittable(Type type)
    {
        try
        {
            GCHandle.Alloc(Activator.CreateInstance(type), GCHandleType.Pinned).Free();
            return true;
        }
        catch (ArgumentException)
        {
            return false;
        }
    }

    static void EntryPoints(string soExports, string dllExports)
    {
        var bound = new SortedSet<string>();
        foreach (var type in typeof(FootholdClient).Assembly.GetTypes())
        {
            foreach (var method in type.GetMethods(BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic))
            {
                var import = (DllImportAttribute)method.GetCustomAttributes(typeof(DllImportAttribute), false).FirstOrDefault();
                if (import == null || import.Value != "foothold-client") continue;
                bound.Add(string.IsNullOrEmpty(import.EntryPoint) ? method.Name : import.EntryPoint);
            }
        }
        Check(bound.Count > 0, "no [DllImport(\"foothold-client\")] methods found");
        // The .so exports the C API and nothing else: the binding binds it all, and nothing more.
        var so = new SortedSet<string>(File.ReadAllLines(soExports).Where(l => l.Length > 0));
        var unbound = so.Except(bound).ToList();
        var missing = bound.Except(so).ToList();
        Check(unbound.Count == 0, "the C API's " + string.Join(", ", unbound) + " not bound");
        Check(missing.Count == 0, "bound but not exported by libfoothold-client.so: " + string.Join(", ", missing));
        Console.WriteLine("entrypoints: the binding's {0} P/Invoke names are exactly libfoothold-client.so's exports", bound.Count);
        if (dllExports == null) return;
        var dll = new SortedSet<string>(File.ReadAllLines(dllExports).Select(l => l.Trim()).Where(l => l.Length > 0));
        missing = bound.Except(dll).ToList();
        Check(missing.Count == 0, "not exported by foothold-client.dll: " + string.Join(", ", missing));
        Console.WriteLine("entrypoints: all {0} resolve against foothold-client.dll's export table", bound.Count);
    }

    // Message i: a pattern of its own, 1 to 3001 bytes (the first 101, more than the too-small buffer).
    static byte[] Message(int i)
    {
        var bytes = new byte[1 + (i * 733 + 100) % 3001];
        uint x = (uint)(i * 2654435761u + 1);
        for (int k = 0; k < bytes.Length; ++k)
        {
            x = x * 1664525u + 1013904223u;
            bytes[k] = (byte)(x >> 24);
        }
        return bytes;
    }

    static void Echo(string token)
    {
        const int kCount = 100;
        using (var client = Connect(token))
        {
            int sent = 0, received = 0, tooSmall = 0;
            var small = new byte[1];
            var buffer = new byte[65536];
            double start = Now();
            while (received < kCount)
            {
                Check(Now() - start < 30, "echo: " + received + " of " + kCount + " back after 30 s");
                while (sent < kCount)
                {
                    var result = client.SendMessage(Channel.Reliable, Message(sent));
                    if (result == Result.ErrorQueueFull) break;
                    Check(result == Result.Ok, "send " + sent + ": " + result + ": " + client.LastError);
                    ++sent;
                }
                Frame(client, 0, 0);
                for (;;)
                {
                    int size;
                    Channel channel;
                    // The first time, a buffer too small: the size needed comes back and the message stays.
                    var result = client.ReceiveMessage(tooSmall == 0 ? small : buffer, out size, out channel);
                    if (result == Result.ErrorArgument && tooSmall == 0)
                    {
                        Check(size == Message(received).Length, "too small: needed " + size + ", the message is " + Message(received).Length);
                        ++tooSmall;
                        continue;
                    }
                    Check(result == Result.Ok, "receive: " + result + ": " + client.LastError);
                    if (size == 0) break;
                    var want = Message(received);
                    Check(channel == Channel.Reliable, "message " + received + " came back on " + channel);
                    Check(size == want.Length, "message " + received + ": " + size + " bytes back, " + want.Length + " sent");
                    for (int k = 0; k < size; ++k)
                        Check(buffer[k] == want[k], "message " + received + " differs at byte " + k);
                    ++received;
                }
                Check(client.Status == Status.Connected, "echo: " + client.Status + ": " + client.LastError);
            }
            Stats stats;
            client.GetStats(out stats);
            Check(stats.MessagesSent == kCount && stats.MessagesReceived == kCount,
                  "stats count " + stats.MessagesSent + " sent, " + stats.MessagesReceived + " received");
            Console.WriteLine("echo: {0} reliable messages ({1} bytes) back byte for byte in order; the too-small buffer was told the size",
                              kCount, Enumerable.Range(0, kCount).Sum(i => Message(i).Length));
        }
    }

    static void Tag(string token)
    {
        using (var client = Connect(token))
        {
            Check(client.AttributeIndex(AttributeScope.Match, "it") == 0 && client.AttributeIndex(AttributeScope.Match, "round") == 1 &&
                  client.AttributeIndex(AttributeScope.Match, "seconds_left") == 2 && client.AttributeIndex(AttributeScope.Match, "tags") == 3,
                  "the tag game's match attributes by name");
            Check(client.AttributeIndex(AttributeScope.Character, "it_seconds") == 0, "it_seconds by name");
            Check(client.AttributeIndex(AttributeScope.Match, "no such") == -1, "an unknown name is -1");
            Check(client.AttributeName(AttributeScope.Match, 1) == "round" && client.AttributeName(AttributeScope.Match, 4) == null,
                  "names by index");
            int value;
            Check(client.Attribute(AttributeScope.Match, 16, out value) == Result.ErrorArgument, "index 16 is refused");
            // Alone, this client is "it" (the match's attribute, its character id), and its seconds as "it" count up.
            int itIndex = client.AttributeIndex(AttributeScope.Match, "it");
            int secondsIndex = client.AttributeIndex(AttributeScope.Character, "it_seconds");
            double start = Now();
            int it = 0, seconds = 0;
            Character me;
            for (;;)
            {
                Frame(client, 0, 0);
                Check(client.Attribute(AttributeScope.Match, itIndex, out it) == Result.Ok, "read it");
                Check(client.Attribute(AttributeScope.Character, secondsIndex, out seconds) == Result.Ok, "read it_seconds");
                Check(client.LocalCharacter(out me) == Result.Ok, "local character");
                if (it == (int)me.Id && seconds >= 2) break;
                Check(Now() - start < 15, "after 15 s: it=" + it + " (me " + me.Id + "), it_seconds=" + seconds);
            }
            // it_seconds is seen by all: this client reads its own character's through CharacterAttribute too.
            int seen;
            Check(client.CharacterAttribute(me.Id, secondsIndex, out seen) == Result.Ok && seen == seconds,
                  "CharacterAttribute of this client's own character: " + seen + ", not " + seconds);
            Check(client.CharacterAttribute(me.Id, 16, out seen) == Result.ErrorArgument, "CharacterAttribute: index 16 is refused");
            Console.WriteLine("tag: attributes by name: it={0} is this client's character, it_seconds={1}", it, seconds);
        }
    }

    static void Events(string token)
    {
        using (var client = Connect(token))
        {
            Character me;
            client.LocalCharacter(out me);
            uint other = 0;
            ulong otherClient = 0;
            double start = Now();
            var remotes = new Character[8];
            bool seen = false;
            for (;;)
            {
                Check(Now() - start < 30, other == 0 ? "no other character appeared in 30 s" : "character " + other + " did not leave in 30 s");
                Frame(client, 0, 0);
                int count;
                Check(client.DrawRemotes(remotes, out count) == Result.Ok, "draw remotes");
                if (other != 0 && count > 0 && remotes[0].Id == other) seen = true;
                ClientEvent e;
                Check(client.PollEvent(out e) == Result.Ok, "poll event");
                if (e.KindOf == EventKind.None) continue;
                Check(e.CharacterId != me.Id, "an event for this client's own character");
                if (e.KindOf == EventKind.Appeared && other == 0)
                {
                    other = e.CharacterId;
                    otherClient = e.ClientId;
                    Console.WriteLine("events: character {0} (client {1}) appeared at tick {2}", e.CharacterId, e.ClientId, e.Tick);
                }
                else if (e.KindOf == EventKind.LeftMatch && e.CharacterId == other)
                {
                    Check(e.ClientId == otherClient, "the leave names client " + e.ClientId + ", the appearance " + otherClient);
                    Console.WriteLine("events: character {0} left the match at tick {1}", e.CharacterId, e.Tick);
                    break;
                }
            }
            Check(seen, "the other character was never drawn among the remotes");
        }
    }

    static void Disconnect(string token, string noServerToken)
    {
        using (var client = Connect(token))
        {
            Check(client.EndReason == EndReason.None, "end reason while connected: " + client.EndReason);
            Check(client.Disconnect() == Result.Ok, "disconnect");
            Check(client.Status == Status.Disconnected, "status after disconnect: " + client.Status);
            Check(client.EndReason == EndReason.ClientQuit, "end reason after disconnect: " + client.EndReason);
            Console.WriteLine("disconnect: status {0}, end reason {1} ({2})", client.Status,
                              FootholdClient.EndName(client.EndReason), client.LastError);
            // The same client connects again; a port nobody listens on refuses it.
            client.ConnectTokenFile(noServerToken);
            double start = Now();
            while (client.Status == Status.Connecting)
            {
                Check(Now() - start < 10, "still connecting to a closed port after 10 s");
                Frame(client, 0, 0);
            }
            Check(client.EndReason == EndReason.NoServer, "a closed port ended with " + client.EndReason + ": " + client.LastError);
            Console.WriteLine("disconnect: a closed port: status {0}, end reason {1} ({2})", client.Status,
                              FootholdClient.EndName(client.EndReason), client.LastError);
        }
    }

    // Every per-frame call for 2,000 frames after a warm-up: the GC must see no collection, the heap
    // no growth, and this thread no allocation at all. The last is the one that catches a small
    // allocation: Mono's GetTotalMemory(false) does not count what sits in the nursery (4 MiB), so
    // 2,000 frames of 100 bytes each would pass the first two. Frames are 2 ms apart (the client
    // runs what ticks are due), to keep it short.
    static void Allocation(string token)
    {
        const int kWarmUp = 300, kFrames = 2000;
        using (var client = Connect(token))
        {
            var remotes = new Character[64];
            var buffer = new byte[65536];
            var message = new byte[32];
            var vertices = new float[9 * 16];
            var tags = new uint[16];
            int moverCount = Math.Min(client.MoverTriangleCount, 16);
            int itIndex = client.AttributeIndex(AttributeScope.Match, "it");
            long gcBefore = 0, bytesBefore = 0, allocatedBefore = 0;
            ulong echoed = 0;
            int maxRemotes = 0;
            for (int frame = 0; frame < kWarmUp + kFrames; ++frame)
            {
                if (frame == kWarmUp)
                {
                    gcBefore = GC.CollectionCount(0);
                    bytesBefore = GC.GetTotalMemory(false);
                    allocatedBefore = GC.GetAllocatedBytesForCurrentThread();
                }
                double angle = frame * 0.01;
                client.SetInput(Math.Cos(angle), Math.Sin(angle), (frame % 120) == 0 ? Buttons.Jump : Buttons.None);
                if (client.Update(Now()) != Result.Ok) throw new CheckFailed("update failed");
                Character me;
                Vector3d correction;
                int count;
                client.DrawLocal(out me, out correction);
                client.LocalCharacter(out me);
                client.DrawRemotes(remotes, out count);
                if (count > maxRemotes) maxRemotes = count;
                client.RemoteCharacters(remotes, out count);
                double viewTick;
                client.ViewTick(out viewTick);
                ClientEvent e;
                while (client.PollEvent(out e) == Result.Ok && e.Kind != (int)EventKind.None) { }
                message[0] = (byte)frame;
                if (frame % 10 == 0) client.SendMessage(Channel.Reliable, message, 0, message.Length);
                int size;
                Channel channel;
                while (client.ReceiveMessage(buffer, out size, out channel) == Result.Ok && size > 0) ++echoed;
                int value;
                client.Attribute(AttributeScope.Match, itIndex < 0 ? 0 : itIndex, out value);
                if (moverCount > 0) client.MoverTriangles(0, moverCount, vertices, tags);
                Stats stats;
                client.GetStats(out stats);
                if (client.Status != Status.Connected || client.EndReason != EndReason.None) throw new CheckFailed("the session ended");
                Thread.Sleep(2);
            }
            long allocated = GC.GetAllocatedBytesForCurrentThread() - allocatedBefore;
            long collections = GC.CollectionCount(0) - gcBefore;
            long growth = GC.GetTotalMemory(false) - bytesBefore;
            Console.WriteLine("allocation: frames={0} gc0_collections={1} heap_bytes_growth={2} allocated_bytes={3} (echoes received {4}, remotes up to {5})",
                              kFrames, collections, growth, allocated, echoed, maxRemotes);
            Check(echoed > 0, "no echo came back: the message calls were not exercised");
            Check(maxRemotes > 0, "no remote character: the remote calls were not exercised with data");
            Check(collections == 0, collections + " collections of generation 0 over " + kFrames + " frames");
            Check(growth <= 0, "the managed heap grew by " + growth + " bytes over " + kFrames + " frames");
            Check(allocated == 0, allocated + " bytes allocated over " + kFrames + " frames");
        }
    }
}
