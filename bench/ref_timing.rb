# The reference engine's load time per record in CPU seconds of its process (best of 3), so that it and
# Railpost (bench_engine.py, also CPU seconds) are timed alike on a shared, loaded machine; the oracle's
# tools/timing.rb gives wall-clock seconds. Usage: REF_18XX=... ruby bench/ref_timing.rb GAME.json...
oracle = ENV.fetch('ORACLE_HOME', '/work/shared/oracle')
$LOAD_PATH.unshift(File.join(oracle, 'shim'))
require 'json'
require File.join(ENV.fetch('REF_18XX'), 'lib/engine')
ARGV.each do |path|
  data = JSON.parse(File.read(path))
  times = 3.times.map do
    GC.start
    t = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
    g = Engine::Game.load(data)
    raise 'exception' if g.exception
    Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - t
  end
  puts JSON.generate({ 'file' => path, 'best' => times.min.round(4) })
end
