#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <netinet/in.h>
#include <arpa/inet.h>
static long now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1000000000L+t.tv_nsec;}
static int fd; static struct sockaddr_in addr; static volatile int stop;
static int slice;
static void pin(int c){cpu_set_t s;CPU_ZERO(&s);CPU_SET(c,&s);pthread_setaffinity_np(pthread_self(),sizeof s,&s);}
static void* hog(void*a){pin(0);volatile double x=0;while(!stop)x+=1.0;return 0;}
static void* sleeper(void*a){pin(0);
  if(slice){struct {uint32_t size,policy;uint64_t flags;int32_t nice;uint32_t prio;uint64_t rt,dl,per;} at={0};at.size=sizeof at;at.rt=100000;
   printf("setattr %ld\n", syscall(SYS_sched_setattr,0,&at,0));}
  long lat[2000];int n=0;
  while(n<2000){struct pollfd p={fd,POLLIN,0};struct timespec ts={0,500000};ppoll(&p,1,&ts,0);
    if(p.revents&POLLIN){long s;while(recv(fd,&s,8,MSG_DONTWAIT)==8){lat[n++]=now()-s;if(n>=2000)break;}}}
  // sort
  for(int i=0;i<n;i++)for(int j=i+1;j<n;j++)if(lat[j]<lat[i]){long t=lat[i];lat[i]=lat[j];lat[j]=t;}
  int big=0;for(int i=0;i<n;i++)big+=lat[i]>500000;printf("slice=%d median %.1f us p90 %.1f p99 %.1f max %.1f over500us %d of %d\n",slice,lat[n/2]/1e3,lat[n*9/10]/1e3,lat[n*99/100]/1e3,lat[n-1]/1e3,big,n);
  stop=1;return 0;}
int main(int c,char**v){slice=atoi(v[1]);fd=socket(AF_INET,SOCK_DGRAM,0);addr.sin_family=AF_INET;addr.sin_addr.s_addr=htonl(0x7f000001);
 bind(fd,(void*)&addr,sizeof addr);socklen_t l=sizeof addr;getsockname(fd,(void*)&addr,&l);
 int s2=socket(AF_INET,SOCK_DGRAM,0);pthread_t a,b;pthread_create(&a,0,hog,0);pthread_create(&b,0,sleeper,0);pin(1);
 while(!stop){long t=now();sendto(s2,&t,8,0,(void*)&addr,sizeof addr);usleep(700);} pthread_join(b,0);return 0;}
