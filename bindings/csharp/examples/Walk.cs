// walk: Foothold's client from C#, the C example's twin (examples/c_client).
//
//   mono walk.exe TOKEN_FILE [SECONDS]
//
// Loads a connect token (as `foothold-token issue --out` writes it), connects to the server it names,
// walks in a circle for SECONDS (default 10) at 60 frames per second, and prints as its last line:
//
//   connected=1 ticks=N distance_m=D corrections=C
//
// N is the ticks predicted, D the horizontal distance walked in metres (along the path: a circle
// ends near where it began), C the predictions the server corrected. The lines before it give the
// session's messages and corrections by cause, and the binding's cost per frame while walking
// (SetInput, Update, LocalCharacter, GetStats, as the C example measures the C API's) as this
// thread's CPU time, median and 99th percentile in microseconds:
//
//   api_cpu_us_per_frame_p50=X api_cpu_us_per_frame_p99=Y frames=F
//
// Exit 0 when it connected, 1 when it never did (the line then says connected=0), 2 for bad usage.
// Built with Mono (the library, libfoothold-client.so or foothold-client.dll, on the loader's path):
//
//   mcs -langversion:7.2 -out:walk.exe bindings/csharp/Foothold/*.cs bindings/csharp/examples/Walk.cs
using System;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;
using System.Threading;
using Foothold;

static class Walk
{
    // One lap every 6 s: a circle of about 5 m radius at the default walk speed, inside the arena.
    const double kLapSeconds = 6;
    const double kFrame = 1.0 / 60.0;

    static int Main(string[] args)
    {
        if (args.Length < 1 || args.Length > 2)
        {
            Console.Error.WriteLine("usage: mono walk.exe TOKEN_FILE [SECONDS]");
            return 2;
        }
        double seconds = 10;
        if (args.Length == 2 &&
            (!double.TryParse(args[1], NumberStyles.Float, CultureInfo.InvariantCulture, out seconds) ||
             !(seconds > 0 && seconds <= 3600)))
        {
            Console.Error.WriteLine("walk: SECONDS must be a number in (0, 3600], not '{0}'", args[1]);
            return 2;
        }

        FootholdClient client;
        try
        {
            client = new FootholdClient();
        }
        catch (FootholdException e)
        {
            Console.Error.WriteLine("walk: {0}", e.Message);
            return 1;
        }
        using (client)
        {
            try
            {
                client.ConnectTokenFile(args[0]);
            }
            catch (FootholdException e)
            {
                Console.Error.WriteLine("walk: {0}", e.Message);
                return 2;
            }
            return Run(client, seconds);
        }
    }

    static int Run(FootholdClient client, double seconds)
    {
        // Connect (at most 10 s), then walk for SECONDS: one update per 1/60 s frame.
        var samples = new double[65536];
        int sampleCount = 0;
        var clock = Stopwatch.StartNew();
        double next = 0, walkFrom = 0, walkUntil = 0, distance = 0;
        bool connected = false, failed = false;
        Character me;
        Vector3d last = new Vector3d();
        Stats stats;
        for (;;)
        {
            double now = clock.Elapsed.TotalSeconds;
            Status status = client.Status;
            if (!connected && status == Status.Connected)
            {
                connected = true;
                walkFrom = now;
                walkUntil = now + seconds;
                if (client.LocalCharacter(out me) == Result.Ok) last = me.Position;
            }
            if (status >= Status.Rejected)
            {
                Console.Error.WriteLine("walk: {0} ({1})", client.LastError, FootholdClient.EndName(client.EndReason));
                failed = true;
                break;
            }
            if (!connected && now > 10)
            {
                Console.Error.WriteLine("walk: not connected after 10 s");
                break;
            }
            if (connected && now >= walkUntil) break;
            double angle = 2 * Math.PI * (now - walkFrom) / kLapSeconds;
            double before = ThreadCpu.Seconds();
            client.SetInput(connected ? Math.Cos(angle) : 0, connected ? -Math.Sin(angle) : 0, Buttons.None);
            if (client.Update(now) != Result.Ok)
            {
                Console.Error.WriteLine("walk: {0}", client.LastError);
                failed = true;
                break;
            }
            if (connected)
            {
                client.LocalCharacter(out me);
                client.GetStats(out stats);
                if (sampleCount < samples.Length) samples[sampleCount++] = (ThreadCpu.Seconds() - before) * 1e6;
                double dx = me.Position.X - last.X, dz = me.Position.Z - last.Z;
                distance += Math.Sqrt(dx * dx + dz * dz);
                last = me.Position;
            }
            next += kFrame;
            double wait = next - clock.Elapsed.TotalSeconds;
            if (wait > 0) Thread.Sleep(TimeSpan.FromSeconds(wait));
        }

        client.GetStats(out stats);
        Array.Sort(samples, 0, sampleCount);
        Console.WriteLine(string.Format(CultureInfo.InvariantCulture,
            "messages_sent={0} messages_received={1} corrections_input={2} corrections_interaction={3} corrections_server={4} unexplained={5}",
            stats.MessagesSent, stats.MessagesReceived, stats.CorrectionsInput, stats.CorrectionsInteraction,
            stats.CorrectionsServer, stats.CorrectionsUnexplained));
        Console.WriteLine(string.Format(CultureInfo.InvariantCulture,
            "api_cpu_us_per_frame_p50={0:F1} api_cpu_us_per_frame_p99={1:F1} frames={2}",
            Quantile(samples, sampleCount, 0.5), Quantile(samples, sampleCount, 0.99), sampleCount));
        Console.WriteLine(string.Format(CultureInfo.InvariantCulture, "connected={0} ticks={1} distance_m={2:F2} corrections={3}",
            connected ? 1 : 0, stats.Ticks, distance, stats.Corrections));
        return connected && !failed ? 0 : 1;
    }

    static double Quantile(double[] sorted, int count, double p)
    {
        if (count == 0) return 0;
        int k = Math.Min((int)(p * count), count - 1);
        return sorted[k];
    }
}

// This thread's CPU time, as the C example reads it (so time the scheduler gave to others does not
// count): clock_gettime(CLOCK_THREAD_CPUTIME_ID) on Linux, GetThreadTimes on Windows.
static class ThreadCpu
{
    [StructLayout(LayoutKind.Sequential)]
    struct Timespec
    {
        public long Seconds;
        public long Nanoseconds;
    }

    const int kClockThreadCputimeId = 3;

    [DllImport("libc", EntryPoint = "clock_gettime")]
    static extern int clock_gettime(int clock, out Timespec time);

    [DllImport("kernel32")]
    static extern IntPtr GetCurrentThread();

    [DllImport("kernel32")]
    static extern bool GetThreadTimes(IntPtr thread, out long created, out long exited, out long kernel, out long user);

    static readonly bool windows_ = Environment.OSVersion.Platform == PlatformID.Win32NT;

    internal static double Seconds()
    {
        if (windows_)
        {
            long created, exited, kernel, user;
            GetThreadTimes(GetCurrentThread(), out created, out exited, out kernel, out user);
            return (kernel + user) * 1e-7;  // 100 ns units
        }
        Timespec t;
        clock_gettime(kClockThreadCputimeId, out t);
        return t.Seconds + t.Nanoseconds * 1e-9;
    }
}
