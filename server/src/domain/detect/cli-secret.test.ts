// Secrets passed as command-line options (cli-secret.ts): the long options named for a secret in
// any command, the short options of the tools where the letter means a password, and the
// commands, prose and placeholders where an option carries none.
import { describe, expect, it } from 'vitest';
import { detectAll } from './index.js';

function secrets(text: string): [string, string][] {
  return detectAll(text)
    .filter((d) => d.confidence >= 0.5 && (d.type === 'password' || d.type === 'api_key'))
    .map((d) => [d.type, d.value]);
}

describe('secrets in command-line options', () => {
  it.each([
    ['curl -u admin:S3cr3tP4ss https://api.example.com', 'S3cr3tP4ss'],
    ['curl --user "deploy:pa55 word" https://x.example', 'pa55 word'],
    ['mysql -u root -pS3cr3tP4ss -h db', 'S3cr3tP4ss'],
    ['$ sudo -u postgres PGHOST=db mysqldump -pHunter22 shop > dump.sql', 'Hunter22'],
    ["sshpass -p 'S3cr3tP4ss' ssh admin@host", 'S3cr3tP4ss'],
    ['docker login -u bob -p S3cr3tP4ss registry.example', 'S3cr3tP4ss'],
    ['podman login --username bob --password S3cr3tP4ss quay.io', 'S3cr3tP4ss'],
    ['redis-cli -h cache -a S3cr3tP4ss ping', 'S3cr3tP4ss'],
    ['wget --user=bob --password S3cr3tP4ss http://x.example/f', 'S3cr3tP4ss'],
    ['wget --http-password=S3cr3tP4ss http://x.example/f', 'S3cr3tP4ss'],
    ['smbclient //srv/share -U bob%S3cr3tP4ss', 'S3cr3tP4ss'],
    ['lftp -u bob,S3cr3tP4ss ftp.example', 'S3cr3tP4ss'],
    ['zip -P S3cr3tP4ss out.zip report.pdf', 'S3cr3tP4ss'],
    ['7z a -pS3cr3tP4ss out.7z dir', 'S3cr3tP4ss'],
    ['ldapsearch -x -D cn=admin,dc=x -w S3cr3tP4ss -b dc=x', 'S3cr3tP4ss'],
    ['sqlcmd -S db -U sa -P S3cr3tP4ss -Q "select 1"', 'S3cr3tP4ss'],
    ['keytool -list -keystore ks.jks -storepass Chang3It!', 'Chang3It!'],
    ['openssl pkcs12 -export -in c.pem -passout pass:Hunter22x -out c.p12', 'Hunter22x'],
    ['cat x | /usr/bin/mysql -pX9y!z db', 'X9y!z'],
  ])('finds the password in %j', (text, value) => {
    expect(secrets(text)).toContainEqual(['password', value]);
  });

  it.each([
    ['gh api --token ghp_16C7e42F292c69 /user', 'ghp_16C7e42F292c69'],
    ['vault login --token=hvs.CAESIabc123', 'hvs.CAESIabc123'],
    ['tool sync --api-key 9f8e7d6c5b4a --region eu', '9f8e7d6c5b4a'],
    ['deploy --client-secret "Zx8.qW3~r"', 'Zx8.qW3~r'],
  ])('finds the token in %j', (text, value) => {
    expect(secrets(text)).toContainEqual(['api_key', value]);
  });

  it.each([
    'mysql -u root -p mydb', // a bare -p prompts for the password
    'ssh -p 2222 bob@host',
    'docker run -p 8080:80 nginx',
    'mkdir -p /tmp/x && git add -p',
    'pg_dump --no-password mydb',
    'echo $TOKEN | docker login -u bob --password-stdin ghcr.io',
    'app --api-key $API_KEY',
    'app --api-key YOUR_API_KEY',
    'app --token <token>',
    'app --password "${DB_PASSWORD}"',
    'app --password ***',
    'Use the --token flag to authenticate, or pass --password and --api-key options.',
    'docker login -p is insecure',
    'docker build --secret id=npmrc,src=.npmrc .',
    'curl -u admin https://x.example', // no password: curl prompts
    'hello - world -- yes - and -- no',
    'redis-cli -p 6380 ping',
  ])('finds no secret in %j', (text) => {
    expect(secrets(text)).toEqual([]);
  });

  it('reads each command of a line or a script by its own tool', () => {
    // -p of ssh is a port even after a mysql command on the same line, and the other way round.
    expect(secrets('ssh -p 22 db; mysql -pZ9x!q db && ssh -p 2222 host')).toEqual([['password', 'Z9x!q']]);
    expect(secrets('mysql -pZ9x!q db\nssh -p 2222 host\nsshpass -p Hunter2x ssh h')).toEqual([
      ['password', 'Z9x!q'],
      ['password', 'Hunter2x'],
    ]);
  });

  it('stays linear on a long command line of options', () => {
    const text = `mysql ${'-v '.repeat(50_000)}-pZ9x!q db ${'--verbose -x '.repeat(20_000)}`;
    expect(secrets(text)).toEqual([['password', 'Z9x!q']]);
  });
});
